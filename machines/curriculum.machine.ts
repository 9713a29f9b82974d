/**
 * The curriculum owns the horizon. After each learner step it works out the horizon of the next
 * step's rollouts and, when it changes, emits `horizon.changed`; the run actor starts new
 * episodes with the new horizon while running ones keep theirs. Its context is the checkpointed
 * curriculum state: restoring it resumes the schedule exactly (AgentGym-RL advanced one step early).
 */
import { assign, emit, setup } from 'xstate';
import { formatSchedule, horizonAt, type Schedule } from './schedule.ts';

export interface CurriculumInput {
  readonly schedule: Schedule;
  /** Learner steps already completed (0 for a new run; the checkpoint's step on resume). */
  readonly completedSteps?: number;
}

export interface CurriculumContext {
  readonly schedule: Schedule;
  readonly completedSteps: number;
  /** Horizon of the rollouts for learner step `completedSteps + 1`. */
  readonly horizon: number;
}

export type CurriculumEvent = { type: 'LEARNER.STEPPED'; step: number };

export type CurriculumEmitted = { type: 'horizon.changed'; from: number; to: number; step: number; reason: string };

export const curriculumMachine = setup({
  types: {
    input: {} as CurriculumInput,
    context: {} as CurriculumContext,
    events: {} as CurriculumEvent,
    emitted: {} as CurriculumEmitted,
  },
  guards: {
    changesHorizon: ({ context }, step: number) => horizonAt(context.schedule, step + 1) !== context.horizon,
  },
}).createMachine({
  id: 'curriculum',
  context: ({ input }) => {
    const completedSteps = input.completedSteps ?? 0;
    return { schedule: input.schedule, completedSteps, horizon: horizonAt(input.schedule, completedSteps + 1) };
  },
  initial: 'active',
  states: {
    active: {
      on: {
        'LEARNER.STEPPED': [
          {
            guard: { type: 'changesHorizon', params: ({ event }) => event.step },
            actions: [
              emit(({ context, event }) => ({
                type: 'horizon.changed' as const,
                from: context.horizon,
                to: horizonAt(context.schedule, event.step + 1),
                step: event.step + 1,
                reason: `${formatSchedule(context.schedule)}: stage for step ${event.step + 1}`,
              })),
              assign(({ context, event }) => ({
                completedSteps: event.step,
                horizon: horizonAt(context.schedule, event.step + 1),
              })),
            ],
          },
          { actions: assign({ completedSteps: ({ event }) => event.step }) },
        ],
      },
    },
  },
});
