/**
 * One episode as a statechart: `idle → resetting → acting → stepping → acting … → finished`.
 * Pure: the env and agent calls are named actions (`callReset`, `callAgent`, `callStep`) that the
 * actors layer implements with `.provide(...)`; their results come back as events. Every call has
 * a deadline (`after`), so a hung env or policy ends the episode as `aborted`, never as a failure.
 */
import { assign, emit, setup } from 'xstate';
import type { StepInfo } from '../envs/contract.ts';
import type { AbortReason, EpisodeOutcome } from '../streams/events.ts';

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

export interface EpisodeTurn {
  readonly action: string;
  readonly reward: number;
  readonly observation: string;
  readonly invalidAction: boolean;
  readonly tokenIds?: readonly number[];
  readonly logProbs?: readonly number[];
}

export interface EpisodeContext extends EpisodeInput {
  readonly turn: number;
  readonly reward: number;
  readonly firstObservation: string;
  readonly observation: string;
  readonly availableActions: readonly string[] | undefined;
  readonly pendingDecision: Decided | undefined;
  readonly turns: readonly EpisodeTurn[];
  readonly outcome: EpisodeOutcome | undefined;
  readonly abortReason: AbortReason | undefined;
  readonly error: string | undefined;
}

export type EpisodeEvent =
  | { type: 'START' }
  | { type: 'ENV.RESET'; observation: string; info: StepInfo }
  | { type: 'AGENT.DECIDED'; action: string; tokenIds?: readonly number[]; logProbs?: readonly number[] }
  | {
      type: 'ENV.STEPPED';
      observation: string;
      reward: number;
      terminated: boolean;
      truncated: boolean;
      info: StepInfo;
    }
  | { type: 'ENV.FAILED'; reason: AbortReason; error: string }
  | { type: 'AGENT.FAILED'; reason: AbortReason; error: string }
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

export interface EpisodeOutput {
  readonly episodeId: string;
  readonly taskId: string;
  readonly slot: number;
  readonly attempt: number;
  readonly outcome: EpisodeOutcome;
  readonly reward: number;
  readonly turns: number;
  readonly maxTurns: number;
  readonly policyVersion: number;
  readonly firstObservation: string;
  readonly trajectory: readonly EpisodeTurn[];
  readonly abortReason?: AbortReason;
  readonly error?: string;
}

type Decided = Extract<EpisodeEvent, { type: 'AGENT.DECIDED' }>;
type Stepped = Extract<EpisodeEvent, { type: 'ENV.STEPPED' }>;

/** How an env-ended episode is scored: the env's own success flag, else a positive reward. */
function endOutcome(step: Stepped): EpisodeOutcome {
  if (!step.terminated) return 'truncated';
  return (step.info.success ?? step.reward > 0) ? 'success' : 'failure';
}

const abortWith = (reason: AbortReason, error: string) => ({ type: 'abortFrom' as const, params: { reason, error } });

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
    abortFrom: assign((_, failure: { reason: AbortReason; error: string }) => ({
      outcome: 'aborted' as const,
      abortReason: failure.reason,
      error: failure.error,
    })),
    /** One assign per step: records the turn and either settles the outcome or moves to the next turn. */
    recordStep: assign(({ context }, { step, outcome }: { step: Stepped; outcome: EpisodeOutcome | undefined }) => {
      const decision = context.pendingDecision;
      const turn: EpisodeTurn = {
        action: decision?.action ?? '',
        reward: step.reward,
        observation: step.observation,
        invalidAction: step.info.invalidAction ?? false,
        ...(decision?.tokenIds ? { tokenIds: decision.tokenIds } : {}),
        ...(decision?.logProbs ? { logProbs: decision.logProbs } : {}),
      };
      return {
        reward: context.reward + step.reward,
        observation: step.observation,
        availableActions: step.info.availableActions,
        pendingDecision: undefined,
        turns: [...context.turns, turn],
        ...(outcome ? { outcome } : { turn: context.turn + 1 }),
      };
    }),
    emitStepped: emit(({ context }, step: Stepped) => ({
      type: 'env.stepped' as const,
      episodeId: context.episodeId,
      turn: context.turn,
      reward: step.reward,
      terminated: step.terminated,
      truncated: step.truncated,
    })),
  },
  delays: {
    envDeadline: ({ context }) => context.envTimeoutMs,
    agentDeadline: ({ context }) => context.agentTimeoutMs,
  },
  guards: {
    ended: (_, event: { terminated: boolean; truncated: boolean }) => event.terminated || event.truncated,
    horizonReached: ({ context }) => context.turn + 1 >= context.maxTurns,
  },
}).createMachine({
  id: 'episode',
  context: ({ input }) => ({
    ...input,
    turn: 0,
    reward: 0,
    firstObservation: '',
    observation: '',
    availableActions: undefined,
    pendingDecision: undefined,
    turns: [],
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
      after: { envDeadline: { target: 'finished', actions: abortWith('env_timeout', 'env reset passed its deadline') } },
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
      after: { agentDeadline: { target: 'finished', actions: abortWith('agent_timeout', 'agent passed its deadline') } },
      on: {
        'AGENT.DECIDED': {
          target: 'stepping',
          actions: [
            assign(({ event }) => ({ pendingDecision: event })),
            emit(({ context, event }) => ({ type: 'agent.acted' as const, episodeId: context.episodeId, turn: context.turn, action: event.action })),
          ],
        },
        'AGENT.FAILED': { target: 'finished', actions: { type: 'abortFrom', params: ({ event }) => event } },
      },
    },
    stepping: {
      entry: 'callStep',
      after: { envDeadline: { target: 'finished', actions: abortWith('env_timeout', 'env step passed its deadline') } },
      on: {
        'ENV.STEPPED': [
          {
            guard: { type: 'ended', params: ({ event }) => event },
            target: 'finished',
            actions: [
              { type: 'emitStepped', params: ({ event }) => event },
              { type: 'recordStep', params: ({ event }) => ({ step: event, outcome: endOutcome(event) }) },
            ],
          },
          {
            guard: 'horizonReached',
            target: 'finished',
            actions: [
              { type: 'emitStepped', params: ({ event }) => event },
              { type: 'recordStep', params: ({ event }) => ({ step: event, outcome: 'truncated' as const }) },
            ],
          },
          {
            target: 'acting',
            actions: [
              { type: 'emitStepped', params: ({ event }) => event },
              { type: 'recordStep', params: ({ event }) => ({ step: event, outcome: undefined }) },
            ],
          },
        ],
        'ENV.FAILED': { target: 'finished', actions: { type: 'abortFrom', params: ({ event }) => event } },
      },
    },
    finished: { type: 'final' },
  },
  output: ({ context }) => ({
    episodeId: context.episodeId,
    taskId: context.taskId,
    slot: context.slot,
    attempt: context.attempt,
    outcome: context.outcome ?? 'aborted',
    // An aborted episode carries no reward: it is never trained on.
    reward: context.outcome === 'aborted' ? 0 : context.reward,
    turns: context.turns.length,
    maxTurns: context.maxTurns,
    policyVersion: context.policyVersion,
    firstObservation: context.firstObservation,
    trajectory: context.turns,
    ...(context.abortReason ? { abortReason: context.abortReason } : {}),
    ...(context.error ? { error: context.error } : {}),
  }),
});
