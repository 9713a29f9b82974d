import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, SimulatedClock, transition } from 'xstate';
import { CALL_DEADLINES, episodeMachine, type AgentDecision, type EpisodeEvent, type EpisodeInput } from '../../machines/episode.machine.ts';

const input: EpisodeInput = {
  episodeId: 'e1',
  taskId: 't1',
  slot: 0,
  attempt: 0,
  seed: 7,
  maxTurns: 3,
  policyVersion: 0,
  envTimeoutMs: 1000,
  agentTimeoutMs: 5000,
};

const info = { availableActions: ['a', 'b'] };
const reset: EpisodeEvent = { type: 'ENV.RESET', observation: 'goal', info };
const decide = (action: string): EpisodeEvent => ({ type: 'AGENT.DECIDED', action });
// The env actor hands back the decision it stepped with.
const stepped = (reward: number, terminated: boolean, success?: boolean, decision: AgentDecision = { action: 'a' }): EpisodeEvent => ({
  type: 'ENV.STEPPED',
  decision,
  observation: 'obs',
  reward,
  terminated,
  truncated: false,
  info: success === undefined ? info : { ...info, success },
});

function run(events: readonly EpisodeEvent[], machineInput: EpisodeInput = input) {
  let [snapshot] = initialTransition(episodeMachine, machineInput);
  const actionTypes: string[][] = [];
  for (const event of events) {
    const [next, actions] = transition(episodeMachine, snapshot, event);
    snapshot = next;
    actionTypes.push(actions.map((action) => action.type));
  }
  return { snapshot, actionTypes };
}

describe('episode machine (pure transitions)', () => {
  it('walks idle → resetting → acting → stepping and asks for each effect', () => {
    const { snapshot, actionTypes } = run([{ type: 'START' }, reset, decide('a')]);
    expect(snapshot.value).toBe('stepping');
    expect(actionTypes[0]).toContain('callReset');
    expect(actionTypes[1]).toContain('callAgent');
    expect(actionTypes[2]).toContain('callStep');
  });

  it('ends in success when the env terminates with success, keeping the reward', () => {
    const { snapshot } = run([{ type: 'START' }, reset, decide('a'), stepped(0, false), decide('b'), stepped(0.8, true, true, { action: 'b' })]);
    expect(snapshot.status).toBe('done');
    expect(snapshot.output).toMatchObject({ outcome: 'success', reward: 0.8, turns: 2 });
    expect(snapshot.output?.trajectory.map((turn) => turn.action)).toEqual(['a', 'b']);
  });

  it('ends in failure when the env terminates without success', () => {
    const { snapshot } = run([{ type: 'START' }, reset, decide('a'), stepped(0, true, false)]);
    expect(snapshot.output).toMatchObject({ outcome: 'failure', reward: 0, turns: 1 });
  });

  it('truncates when the horizon runs out, with the reward so far', () => {
    const events: EpisodeEvent[] = [{ type: 'START' }, reset];
    for (let i = 0; i < 3; i++) events.push(decide('a'), stepped(0.1, false));
    const { snapshot } = run(events);
    expect(snapshot.output).toMatchObject({ outcome: 'truncated', turns: 3, maxTurns: 3 });
    expect(snapshot.output?.reward).toBeCloseTo(0.3);
  });

  it('aborts on an env failure, never scoring it as an agent failure', () => {
    const { snapshot } = run([{ type: 'START' }, reset, decide('a'), { type: 'ENV.FAILED', reason: 'env_lost', error: 'socket closed' }]);
    expect(snapshot.output).toMatchObject({ outcome: 'aborted', abortReason: 'env_lost', reward: 0 });
  });

  it('keeps aborted episodes at reward 0 even after rewarded steps', () => {
    const { snapshot } = run([
      { type: 'START' },
      reset,
      decide('a'),
      stepped(0.5, false),
      { type: 'AGENT.FAILED', reason: 'agent_error', error: 'boom' },
    ]);
    expect(snapshot.output).toMatchObject({ outcome: 'aborted', abortReason: 'agent_error', reward: 0, turns: 1 });
  });

  it('declares a deadline for each call: the env for reset and step, the agent for a decision', () => {
    expect(CALL_DEADLINES.resetting).toMatchObject({ failure: 'ENV.FAILED', reason: 'env_timeout' });
    expect(CALL_DEADLINES.acting).toMatchObject({ failure: 'AGENT.FAILED', reason: 'agent_timeout' });
    expect(CALL_DEADLINES.stepping).toMatchObject({ failure: 'ENV.FAILED', reason: 'env_timeout' });
    expect(CALL_DEADLINES.stepping.timeoutMs(input)).toBe(1000);
    expect(CALL_DEADLINES.acting.timeoutMs(input)).toBe(5000);
  });

  it('aborts with the reason of a passed deadline, in the state that waited', () => {
    const { snapshot: stepping } = run([{ type: 'START' }, reset, decide('a'), { type: 'ENV.FAILED', reason: 'env_timeout', error: 'env step passed its deadline' }]);
    expect(stepping.output).toMatchObject({ outcome: 'aborted', abortReason: 'env_timeout', error: 'env step passed its deadline' });
    const { snapshot: acting } = run([{ type: 'START' }, reset, { type: 'AGENT.FAILED', reason: 'agent_timeout', error: 'agent passed its deadline' }]);
    expect(acting.output).toMatchObject({ outcome: 'aborted', abortReason: 'agent_timeout' });
  });

  it('schedules no timers of its own (deadlines are swept by the actors layer)', () => {
    const clock = new SimulatedClock();
    const actor = createActor(episodeMachine, { input, clock }).start();
    actor.send({ type: 'START' });
    actor.send(reset);
    clock.increment(60_000);
    expect(actor.getSnapshot().value).toBe('acting');
    actor.stop();
  });

  it('ignores a late reply after it has finished', () => {
    const { snapshot } = run([{ type: 'START' }, reset, { type: 'ABORT', reason: 'cancelled', error: 'stop' }, decide('a')]);
    expect(snapshot.output).toMatchObject({ outcome: 'aborted', abortReason: 'cancelled', turns: 0 });
  });

  it('emits agent.acted and env.stepped for the event stream', () => {
    const actor = createActor(episodeMachine, { input }).start();
    const seen: string[] = [];
    actor.on('*', (event) => seen.push(`${event.type}:${event.turn}`));
    actor.send({ type: 'START' });
    actor.send(reset);
    actor.send(decide('a'));
    actor.send(stepped(0, false));
    expect(seen).toEqual(['agent.acted:0', 'env.stepped:0']);
    actor.stop();
  });
});

describe('episode machine context', () => {
  it('keeps the agent tokens of every turn in the trajectory, oldest first', () => {
    const { snapshot } = run([
      { type: 'START' },
      reset,
      { type: 'AGENT.DECIDED', action: 'a', tokenIds: [1, 2], logProbs: [-0.1, -0.2] },
      stepped(0, false, undefined, { action: 'a', tokenIds: [1, 2], logProbs: [-0.1, -0.2] }),
      decide('b'),
      stepped(1, true, true, { action: 'b' }),
    ]);
    expect(snapshot.output?.trajectory).toEqual([
      { action: 'a', reward: 0, observation: 'obs', invalidAction: false, tokenIds: [1, 2], logProbs: [-0.1, -0.2] },
      { action: 'b', reward: 1, observation: 'obs', invalidAction: false },
    ]);
  });

  it('stays plain JSON data at every step (checkpoints serialise it as is)', () => {
    let [snapshot] = initialTransition(episodeMachine, input);
    for (const event of [{ type: 'START' }, reset, decide('a'), stepped(0, false), decide('b')] as const) {
      [snapshot] = transition(episodeMachine, snapshot, event);
      expect(JSON.parse(JSON.stringify(snapshot.context))).toEqual(snapshot.context);
    }
  });
});
