/**
 * The curriculum actor: the curriculum machine, started. Listen with
 * `.on('curriculum.decided', …)` (every learner step: decision, reason, signals) and
 * `.on('horizon.changed', …)` (only when the horizon moves); send
 * `{ type: 'LEARNER.STEPPED', step, metrics }` after each learner step. `curriculumState(snapshot.context)`
 * is what a checkpoint keeps; pass it back as `state` to resume exactly.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { curriculumMachine, type CurriculumInput } from '../machines/curriculum.machine.ts';

/** The running curriculum actor: send it `LEARNER.STEPPED`; it emits `horizon.changed`. */
export type CurriculumActorRef = ActorRefFrom<typeof curriculumMachine>;

/**
 * The curriculum actor, started: it owns the horizon. Send `{ type: 'LEARNER.STEPPED', step, metrics }`
 * after each learner step; listen with `.on('horizon.changed', …)` and `.on('curriculum.decided', …)`.
 */
export function createCurriculumActor(input: CurriculumInput): CurriculumActorRef {
  return createActor(curriculumMachine, { input }).start();
}
