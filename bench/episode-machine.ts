/**
 * A diagnostic for the runtime's overhead (issue 2): what xstate itself costs per env step. It
 * times, in one process and alternated, (a) a bare two-state machine taking two transitions, the
 * floor for DESIGN's `acting → stepping → acting` step, and (b) the episode machine taking one
 * step (AGENT.DECIDED then ENV.STEPPED, with its two emits and one assign), effects stubbed out.
 *
 *   npx actorgym bench episode-machine    (or: npx tsx bench/episode-machine.ts [STEPS] [ROUNDS])
 */
import { createActor, setup } from 'xstate';
import { episodeMachine } from '../machines/episode.machine.ts';
import { fileURLToPath } from 'node:url';
import { table } from '../charts/text-table.ts';
import { median } from './stats.ts';

const bare = setup({ types: { events: {} as { type: 'A' } | { type: 'B' } } }).createMachine({
  initial: 'x',
  states: { x: { on: { A: 'y' } }, y: { on: { B: 'x' } } },
});

function timeBare(steps: number): number {
  const actor = createActor(bare).start();
  const started = performance.now();
  for (let i = 0; i < steps; i++) {
    actor.send({ type: 'A' });
    actor.send({ type: 'B' });
  }
  return ((performance.now() - started) * 1000) / steps;
}

const input = { episodeId: 'e', taskId: 't', slot: 0, attempt: 0, seed: 1, maxTurns: Number.MAX_SAFE_INTEGER, policyVersion: 0, envTimeoutMs: 1e9, agentTimeoutMs: 1e9 };
const info = { availableActions: ['turn left', 'turn right'] };
const stubbed = episodeMachine.provide({ actions: { callReset: () => {}, callAgent: () => {}, callStep: () => {} } });

function timeEpisode(steps: number): number {
  const actor = createActor(stubbed, { input });
  actor.on('*', () => {});
  actor.start();
  actor.send({ type: 'START' });
  actor.send({ type: 'ENV.RESET', observation: 'o', info });
  const decision = { action: 'turn left' };
  const started = performance.now();
  for (let i = 0; i < steps; i++) {
    actor.send({ type: 'AGENT.DECIDED', action: 'turn left' });
    actor.send({ type: 'ENV.STEPPED', decision, observation: 'o', reward: 0, terminated: false, truncated: false, info });
  }
  return ((performance.now() - started) * 1000) / steps;
}

export function runEpisodeMachineBench(steps = 50_000, rounds = 8): void {
  timeBare(steps);
  timeEpisode(steps);
  const bareRuns: number[] = [];
  const episodeRuns: number[] = [];
  for (let r = 0; r < rounds; r++) {
    bareRuns.push(timeBare(steps));
    episodeRuns.push(timeEpisode(steps));
  }
  console.log(`xstate per env step, median of ${rounds} alternated rounds of ${steps} steps\n`);
  console.log(
    table([
      ['machine', 'µs per env step'],
      ['bare machine, two transitions', median(bareRuns).toFixed(2)],
      ['episode machine (2 transitions, 2 emits, 1 assign; effects stubbed)', median(episodeRuns).toFixed(2)],
    ]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runEpisodeMachineBench(Number(process.argv[2] ?? 50_000), Number(process.argv[3] ?? 8));
}
