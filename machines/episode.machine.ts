/**
 * One episode as a statechart: `idle → resetting → acting → stepping → acting … → finished`.
 * Pure: the env and agent calls are named actions (`callReset`, `callAgent`, `callStep`) that the
 * actors layer implements with `.provide(...)`; their results come back as events. Every call has
 * a deadline (`CALL_DEADLINES`), so a hung env or policy ends the episode as `aborted`, never as a
 * failure. The deadlines are data rather than `after` transitions: the actors layer enforces them
 * with one sweep per run, and a passed one comes back as ENV.FAILED / AGENT.FAILED with a timeout
 * reason. (An `after` costs xstate a scheduled and a cancelled event on every state entry, about
 * a fifth of the runtime's overhead per step, measured in bench/runtime.ts.)
 *
 * This machine runs twice per env step for every running episode, so each transition does one
 * `assign` over a small context: the static input stays in one nested object and the turns are
 * a persistent list (one node linked per step, turned into an array once, in `output`).
 */
import { assign, emit, setup } from 'xstate';
import type { StepInfo } from '../envs/contract.ts';
import type { AgentDecision, EpisodeOutput, EpisodeTurn } from './episode-record.ts';
import type { AbortReason, EpisodeOutcome } from './outcome.ts';

// The episode record's shapes are one zod schema each (episode-record.ts); the machine speaks their types.
export type { AgentDecision, EpisodeOutput, EpisodeTurn, TurnUsage } from './episode-record.ts';

/** Input of one episode machine: its ids, task, seed, horizon and call deadlines. */
export interface EpisodeInput {
  readonly episodeId: string;
  readonly taskId: string;
  readonly slot: number;
  readonly attempt: number;
  /** Reset seed for the env and sampling seed for the policy. */
  readonly seed: number;
  /** The horizon this episode was started with; a later horizon change does not touch it. */
  readonly maxTurns: number;
  readonly policyVersion: number;
  readonly envTimeoutMs: number;
  readonly agentTimeoutMs: number;
}

/** The turns so far, newest first: plain JSON data, appended in O(1) without copying. */
export type TurnList = { readonly last: EpisodeTurn; readonly before: TurnList } | null;

export interface EpisodeContext {
  /** Never changes; kept whole so that an `assign` copies one reference instead of nine fields. */
  readonly input: EpisodeInput;
  readonly turn: number;
  readonly reward: number;
  readonly firstObservation: string;
  readonly observation: string;
  readonly availableActions: readonly string[] | undefined;
  readonly turns: TurnList;
  readonly outcome: EpisodeOutcome | undefined;
  readonly abortReason: AbortReason | undefined;
  readonly error: string | undefined;
  /** Why the policy ended the episode (AGENT.EXHAUSTED), if it did. */
  readonly exhausted?: string;
}


/**
 * Events an episode machine takes: the results and failures of the env and agent calls its actors
 * made, and an abort.
 */
export type EpisodeEvent =
  | { type: 'START' }
  | { type: 'ENV.RESET'; observation: string; info: StepInfo }
  | ({ type: 'AGENT.DECIDED' } & AgentDecision)
  | {
      type: 'ENV.STEPPED';
      /**
       * The decision this step carried out, handed to the env actor with the step and given back
       * with its result: the machine keeps no pending decision in its context, which saves an
       * `assign` (a context copy) on every step.
       */
      decision: AgentDecision;
      observation: string;
      reward: number;
      terminated: boolean;
      truncated: boolean;
      info: StepInfo;
    }
  | { type: 'ENV.FAILED'; reason: AbortReason; error: string }
  | { type: 'AGENT.FAILED'; reason: AbortReason; error: string }
  | { type: 'AGENT.EXHAUSTED'; reason: string }
  | { type: 'ABORT'; reason: AbortReason; error: string };

/**
 * Domain events the machine emits; the actors layer stamps them with the clock's time. The
 * machine state is implied by them (`episode.started` → resetting, `agent.acted` → stepping,
 * `env.stepped` → acting or finished), so no per-state event is sent: it would double the
 * events of every step.
 */
export type EpisodeEmitted =
  | { type: 'agent.acted'; episodeId: string; turn: number; action: string }
  | {
      type: 'env.stepped';
      episodeId: string;
      turn: number;
      reward: number;
      terminated: boolean;
      truncated: boolean;
    };


type Stepped = Extract<EpisodeEvent, { type: 'ENV.STEPPED' }>;
type Failure = { readonly reason: AbortReason; readonly error: string };

/**
 * How a step settles the episode: the env ended it (its own success flag, else a positive reward
 * scores it), or the horizon ran out; `undefined` while it goes on.
 */
function settledBy(context: EpisodeContext, step: Stepped): EpisodeOutcome | undefined {
  if (step.terminated) return (step.info.success ?? step.reward > 0) ? 'success' : 'failure';
  if (step.truncated || context.turn + 1 >= context.input.maxTurns) return 'truncated';
  return undefined;
}

/** Oldest first, as the trajectory is read. */
export function turnsToArray(turns: TurnList): EpisodeTurn[] {
  const out: EpisodeTurn[] = [];
  for (let node = turns; node !== null; node = node.before) out.push(node.last);
  return out.reverse();
}

/** A state that waits on a call, and what its deadline is. */
export interface CallDeadline {
  /** The failure event a passed deadline is reported as. */
  readonly failure: 'ENV.FAILED' | 'AGENT.FAILED';
  readonly reason: Extract<AbortReason, 'env_timeout' | 'agent_timeout'>;
  readonly timeoutMs: (input: EpisodeInput) => number;
  readonly error: string;
}

export type CallState = 'resetting' | 'acting' | 'stepping';

/** The deadline of each call: the env's for reset and step, the agent's for a decision. */
export const CALL_DEADLINES: Readonly<Record<CallState, CallDeadline>> = {
  resetting: { failure: 'ENV.FAILED', reason: 'env_timeout', timeoutMs: (input) => input.envTimeoutMs, error: 'env reset passed its deadline' },
  acting: { failure: 'AGENT.FAILED', reason: 'agent_timeout', timeoutMs: (input) => input.agentTimeoutMs, error: 'agent passed its deadline' },
  stepping: { failure: 'ENV.FAILED', reason: 'env_timeout', timeoutMs: (input) => input.envTimeoutMs, error: 'env step passed its deadline' },
};

/**
 * One episode as a pure statechart (`idle → resetting → acting → stepping → … → finished`); the
 * actors layer provides its env and agent calls.
 */
export const episodeMachine = setup({
  types: {
    input: {} as EpisodeInput,
    context: {} as EpisodeContext,
    events: {} as EpisodeEvent,
    emitted: {} as EpisodeEmitted,
    output: {} as EpisodeOutput,
  },
  actions: {
    // Effects, implemented in actors/episode.actor.ts. Each answers with an event.
    callReset: () => {},
    callAgent: () => {},
    callStep: () => {},
    abortFrom: assign((_, failure: Failure) => ({ outcome: 'aborted' as const, abortReason: failure.reason, error: failure.error })),
    emitStepped: emit(({ context }, step: Stepped) => ({
      type: 'env.stepped' as const,
      episodeId: context.input.episodeId,
      turn: context.turn,
      reward: step.reward,
      terminated: step.terminated,
      truncated: step.truncated,
    })),
    /** The one assign of a step: records the turn, then moves to the next turn or settles the outcome. */
    recordStep: assign(({ context }, step: Stepped) => recordStep(context, step)),
  },
  guards: {
    settles: ({ context }, step: Stepped) => settledBy(context, step) !== undefined,
  },
}).createMachine({
  id: 'episode',
  context: ({ input }) => ({
    input,
    turn: 0,
    reward: 0,
    firstObservation: '',
    observation: '',
    availableActions: undefined,
    turns: null,
    outcome: undefined,
    abortReason: undefined,
    error: undefined,
  }),
  initial: 'idle',
  on: {
    ABORT: { target: '.finished', actions: { type: 'abortFrom', params: ({ event }) => event } },
  },
  states: {
    idle: { on: { START: 'resetting' } },
    resetting: {
      entry: 'callReset',
      on: {
        'ENV.RESET': {
          target: 'acting',
          actions: assign(({ event }) => ({
            firstObservation: event.observation,
            observation: event.observation,
            availableActions: event.info.availableActions,
          })),
        },
        'ENV.FAILED': { target: 'finished', actions: { type: 'abortFrom', params: ({ event }) => event } },
      },
    },
    acting: {
      entry: 'callAgent',
      on: {
        'AGENT.DECIDED': {
          target: 'stepping',
          actions: [
            emit(({ context, event }) => ({
              type: 'agent.acted' as const,
              episodeId: context.input.episodeId,
              turn: context.turn,
              action: event.action,
            })),
          ],
        },
        'AGENT.FAILED': { target: 'finished', actions: { type: 'abortFrom', params: ({ event }) => event } },
        // The policy cannot go on (its context is full): truncated like a horizon, reward so far.
        'AGENT.EXHAUSTED': { target: 'finished', actions: assign(({ event }) => ({ outcome: 'truncated' as const, exhausted: event.reason })) },
      },
    },
    stepping: {
      entry: 'callStep',
      on: {
        'ENV.STEPPED': [
          {
            guard: { type: 'settles', params: ({ event }) => event },
            target: 'finished',
            actions: [
              { type: 'emitStepped', params: ({ event }) => event },
              { type: 'recordStep', params: ({ event }) => event },
            ],
          },
          {
            target: 'acting',
            actions: [
              { type: 'emitStepped', params: ({ event }) => event },
              { type: 'recordStep', params: ({ event }) => event },
            ],
          },
        ],
        'ENV.FAILED': { target: 'finished', actions: { type: 'abortFrom', params: ({ event }) => event } },
      },
    },
    finished: { type: 'final' },
  },
  output: ({ context }) => {
    const trajectory = turnsToArray(context.turns);
    return {
      episodeId: context.input.episodeId,
      taskId: context.input.taskId,
      slot: context.input.slot,
      attempt: context.input.attempt,
      outcome: context.outcome ?? 'aborted',
      // An aborted episode carries no reward: it is never trained on.
      reward: context.outcome === 'aborted' ? 0 : context.reward,
      turns: trajectory.length,
      maxTurns: context.input.maxTurns,
      policyVersion: context.input.policyVersion,
      firstObservation: context.firstObservation,
      trajectory,
      ...(context.abortReason ? { abortReason: context.abortReason } : {}),
      ...(context.error ? { error: context.error } : {}),
      ...(context.exhausted !== undefined ? { exhausted: context.exhausted } : {}),
    };
  },
});

/** Records the turn and either moves to the next turn or settles the outcome. */
function recordStep(context: EpisodeContext, step: Stepped): Partial<EpisodeContext> {
  const { decision } = step;
  const turn: EpisodeTurn = {
    action: decision.action,
    reward: step.reward,
    observation: step.observation,
    invalidAction: step.info.invalidAction ?? false,
    ...(decision.tokenIds ? { tokenIds: decision.tokenIds } : {}),
    ...(decision.logProbs ? { logProbs: decision.logProbs } : {}),
    ...(decision.usage ? { usage: decision.usage } : {}),
  };
  const outcome = settledBy(context, step);
  return {
    reward: context.reward + step.reward,
    observation: step.observation,
    availableActions: step.info.availableActions,
    turns: { last: turn, before: context.turns },
    ...(outcome ? { outcome } : { turn: context.turn + 1 }),
  };
}
