/**
 * The curriculum owns the horizon. After each learner step it decides the horizon of the next
 * step's rollouts: open-loop schedules (`fixed:`, `scaling:`) read it off the step counter, an
 * `adaptive:` schedule from the step's metrics (machines/adaptive-horizon.ts). Every step it emits
 * `curriculum.decided` (decision, reason, signals); when the horizon changes also
 * `horizon.changed`, and the run actor starts new episodes with the new horizon while running
 * ones keep theirs. Its context minus the schedule is the checkpointed curriculum state:
 * restoring it resumes exactly (AgentGym-RL advanced one step early).
 */
import { assign, emit, setup } from 'xstate';
import { decideAdaptive, emptyMemory, rawSignals, stepSignals, type AdaptiveMemory, type DecisionSignals, type HorizonDecision } from './adaptive-horizon.ts';
import { formatSchedule, horizonAt, type Schedule } from './schedule.ts';

/** One decision, made after learner step `step`; `to` is the horizon from step `step + 1`. */
export interface CurriculumDecision {
  readonly step: number;
  readonly from: number;
  readonly to: number;
  readonly decision: HorizonDecision;
  readonly reason: string;
  readonly signals: DecisionSignals;
}

/** The checkpointed state. `adaptive` and `lastDecision` are absent in checkpoints written before issue 5. */
export interface CurriculumState {
  readonly completedSteps: number;
  /** Horizon of the rollouts for learner step `completedSteps + 1`. */
  readonly horizon: number;
  /** The closed loop's memory (adaptive schedules); null for open-loop ones. */
  readonly adaptive?: AdaptiveMemory | null;
  readonly lastDecision?: CurriculumDecision | null;
}

/**
 * Input of the curriculum machine: the schedule, and where a run starts on it (a new run's step
 * count, or a checkpoint's state).
 */
export interface CurriculumInput {
  readonly schedule: Schedule;
  /** Learner steps already completed (0 for a new run); ignored when `state` is given. */
  readonly completedSteps?: number;
  /** A checkpoint's curriculum state to resume from. */
  readonly state?: CurriculumState;
}

export interface CurriculumContext extends CurriculumState {
  readonly schedule: Schedule;
  readonly adaptive: AdaptiveMemory | null;
  readonly lastDecision: CurriculumDecision | null;
}

/** `metrics` is the step's metrics line; adaptive schedules decide from it, the others ignore it. */
export type CurriculumEvent = { type: 'LEARNER.STEPPED'; step: number; metrics?: Readonly<Record<string, number>> };

/**
 * What the curriculum machine emits after each learner step: `curriculum.decided` always,
 * `horizon.changed` (`from`, `to`, `step`, `reason`) when the horizon moves.
 */
export type CurriculumEmitted =
  | { type: 'horizon.changed'; from: number; to: number; step: number; reason: string }
  | ({ type: 'curriculum.decided' } & CurriculumDecision);

const directionOf = (from: number, to: number): HorizonDecision => (to > from ? 'raise' : to < from ? 'back' : 'hold');

function initialContext({ schedule, completedSteps, state }: CurriculumInput): CurriculumContext {
  const steps = state?.completedSteps ?? completedSteps ?? 0;
  if (schedule.kind !== 'adaptive') {
    return { schedule, completedSteps: steps, horizon: horizonAt(schedule, steps + 1), adaptive: null, lastDecision: state?.lastDecision ?? null };
  }
  const horizon = Math.min(schedule.max, Math.max(schedule.min, state?.horizon ?? schedule.min));
  return { schedule, completedSteps: steps, horizon, adaptive: state?.adaptive ?? emptyMemory, lastDecision: state?.lastDecision ?? null };
}

/** The next context after learner step `step`; its `lastDecision` is this step's decision. */
export function advance(context: CurriculumContext, event: CurriculumEvent): CurriculumContext {
  const { schedule, horizon } = context;
  const signals = stepSignals(event.step, event.metrics);
  if (schedule.kind === 'adaptive') {
    const verdict = decideAdaptive(schedule, horizon, context.adaptive ?? emptyMemory, event.step, signals);
    const decision: CurriculumDecision = { step: event.step, from: horizon, to: verdict.to, decision: verdict.decision, reason: verdict.reason, signals: verdict.signals };
    return { ...context, completedSteps: event.step, horizon: verdict.to, adaptive: verdict.memory, lastDecision: decision };
  }
  const to = horizonAt(schedule, event.step + 1);
  const name = formatSchedule(schedule);
  const reason = to !== horizon ? `${name}: stage for step ${event.step + 1}` : `${name}: horizon ${to} for step ${event.step + 1}`;
  const decision: CurriculumDecision = { step: event.step, from: horizon, to, decision: directionOf(horizon, to), reason, signals: rawSignals(signals, 0) };
  return { ...context, completedSteps: event.step, horizon: to, lastDecision: decision };
}

/** The part of the context a checkpoint keeps (the schedule is in the run's config). */
export function curriculumState({ schedule: _schedule, ...state }: CurriculumContext): CurriculumState {
  return state;
}

/**
 * The curriculum as a machine: owns the horizon and moves it on `LEARNER.STEPPED` by its schedule
 * (open-loop) or the step's metrics (`adaptive:`).
 */
export const curriculumMachine = setup({
  types: {
    input: {} as CurriculumInput,
    context: {} as CurriculumContext,
    events: {} as CurriculumEvent,
    emitted: {} as CurriculumEmitted,
  },
  guards: {
    movesHorizon: ({ context, event }) => advance(context, event).horizon !== context.horizon,
  },
  actions: {
    // Actions run in order, so the emits below read the context this assign produced.
    decide: assign(({ context, event }) => advance(context, event)),
    emitDecided: emit(({ context }) => ({ type: 'curriculum.decided' as const, ...(context.lastDecision as CurriculumDecision) })),
    emitChanged: emit(({ context }) => {
      const { from, to, step, reason } = context.lastDecision as CurriculumDecision;
      return { type: 'horizon.changed' as const, from, to, step: step + 1, reason };
    }),
  },
}).createMachine({
  id: 'curriculum',
  context: ({ input }) => initialContext(input),
  initial: 'active',
  states: {
    active: {
      on: {
        'LEARNER.STEPPED': [
          { guard: 'movesHorizon', actions: ['decide', 'emitDecided', 'emitChanged'] },
          { actions: ['decide', 'emitDecided'] },
        ],
      },
    },
  },
});
