/**
 * The learner as a statechart: one learner step is `collecting → training → publishing`
 * (then `checkpointing` every K steps), repeated until the target step, a stop or an error.
 *
 *   idle ─START→ deciding ─→ collecting ─→ training ─→ publishing ─→ [checkpointing] ─→ deciding …
 *                   └─→ done (target reached) · stopped (STOP) · failed (an effect threw)
 *
 * Pure: the effects are named actors (`collectRollouts`, `trainPolicy`, `publishWeights`,
 * `saveCheckpoint`) that actors/learner.actor.ts implements with `.provide(...)`. Bulk data
 * (trajectories, tensors) stays in those effects; the context holds only JSON: the step counter,
 * the policy version and the last step's metrics, which is what a checkpoint needs.
 *
 * STOP while collecting ends the step at once (its rollouts are discarded, never trained on);
 * STOP during training, publishing or checkpointing lets that effect finish, so the weights, the
 * optimizer and the step counter never disagree.
 */
import { assign, emit, fromPromise, setup } from 'xstate';
import { errorMessage } from '../envs/error-message.ts';

/** One learner step's numbers, as logged to metrics.jsonl (flat keys, JSON values). */
export type LearnerMetrics = Readonly<Record<string, number>>;

export interface LearnerInput {
  /** Steps already completed (0 for a fresh run, the checkpoint's step on resume). */
  readonly completedSteps: number;
  /** Stop after this step (total, not additional). */
  readonly targetSteps: number;
  readonly policyVersion: number;
  /** Save a checkpoint after every K-th step; 0 = never (the caller saves at the end). */
  readonly checkpointEvery: number;
}

export interface LearnerContext {
  readonly step: number;
  readonly targetSteps: number;
  readonly policyVersion: number;
  readonly checkpointEvery: number;
  /** Rollout stats of the step in progress (from `collectRollouts`). */
  readonly rollout: LearnerMetrics | undefined;
  /** Metrics of the last completed step. */
  readonly lastMetrics: LearnerMetrics | undefined;
  readonly lastCheckpointStep: number;
  readonly stopRequested: boolean;
  readonly error: string | undefined;
}

export type LearnerEvent = { type: 'START' } | { type: 'STOP'; reason?: string };

export type LearnerEmitted =
  | { type: 'learner.stepped'; step: number; policyVersion: number; metrics: LearnerMetrics }
  | { type: 'checkpoint.saved'; step: number; path: string };

/** What each effect receives and returns (the implementations live in actors/). */
export interface CollectInput { readonly step: number }
export interface TrainInput { readonly step: number; readonly rollout: LearnerMetrics }
export interface PublishInput { readonly version: number }
export interface CheckpointInput { readonly step: number; readonly policyVersion: number }

/** Placeholder effects: the machine is pure until actors/ provides them. */
const notProvided = <O, I>(name: string) =>
  fromPromise<O, I>(async () => {
    throw new Error(`learner effect '${name}' is not provided`);
  });

export const learnerMachine = setup({
  types: {
    input: {} as LearnerInput,
    context: {} as LearnerContext,
    events: {} as LearnerEvent,
    emitted: {} as LearnerEmitted,
  },
  actors: {
    collectRollouts: notProvided<LearnerMetrics, CollectInput>('collectRollouts'),
    trainPolicy: notProvided<LearnerMetrics, TrainInput>('trainPolicy'),
    publishWeights: notProvided<void, PublishInput>('publishWeights'),
    saveCheckpoint: notProvided<string, CheckpointInput>('saveCheckpoint'),
  },
  guards: {
    targetReached: ({ context }) => context.step >= context.targetSteps,
    stopRequested: ({ context }) => context.stopRequested,
    checkpointDue: ({ context }) => context.checkpointEvery > 0 && context.step % context.checkpointEvery === 0,
  },
  actions: {
    requestStop: assign({ stopRequested: true }),
    recordError: assign({ error: (_, params: { error: unknown }) => errorMessage(params.error) }),
  },
}).createMachine({
  id: 'learner',
  context: ({ input }) => ({
    step: input.completedSteps,
    targetSteps: input.targetSteps,
    policyVersion: input.policyVersion,
    checkpointEvery: input.checkpointEvery,
    rollout: undefined,
    lastMetrics: undefined,
    lastCheckpointStep: input.completedSteps,
    stopRequested: false,
    error: undefined,
  }),
  initial: 'idle',
  on: { STOP: { actions: 'requestStop' } },
  states: {
    idle: { on: { START: 'deciding', STOP: { target: 'stopped', actions: 'requestStop' } } },
    deciding: {
      always: [
        { guard: 'stopRequested', target: 'stopped' },
        { guard: 'targetReached', target: 'done' },
        { target: 'collecting' },
      ],
    },
    collecting: {
      on: { STOP: { target: 'stopped', actions: 'requestStop' } },
      invoke: {
        src: 'collectRollouts',
        input: ({ context }) => ({ step: context.step + 1 }),
        onDone: { target: 'training', actions: assign({ rollout: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    training: {
      invoke: {
        src: 'trainPolicy',
        input: ({ context }) => ({ step: context.step + 1, rollout: context.rollout ?? {} }),
        onDone: { target: 'publishing', actions: assign({ lastMetrics: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    publishing: {
      invoke: {
        src: 'publishWeights',
        input: ({ context }) => ({ version: context.policyVersion + 1 }),
        onDone: {
          target: 'stepped',
          actions: [
            assign({ step: ({ context }) => context.step + 1, policyVersion: ({ context }) => context.policyVersion + 1, rollout: undefined }),
            emit(({ context }) => ({
              type: 'learner.stepped' as const,
              step: context.step,
              policyVersion: context.policyVersion,
              metrics: { ...(context.lastMetrics ?? {}), step: context.step, policyVersion: context.policyVersion },
            })),
          ],
        },
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    stepped: {
      always: [{ guard: 'checkpointDue', target: 'checkpointing' }, { target: 'deciding' }],
    },
    checkpointing: {
      invoke: {
        src: 'saveCheckpoint',
        input: ({ context }) => ({ step: context.step, policyVersion: context.policyVersion }),
        onDone: {
          target: 'deciding',
          actions: [
            assign({ lastCheckpointStep: ({ context }) => context.step }),
            emit(({ context, event }) => ({ type: 'checkpoint.saved' as const, step: context.step, path: event.output })),
          ],
        },
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    done: { type: 'final' },
    stopped: { type: 'final' },
    failed: { type: 'final' },
  },
});
