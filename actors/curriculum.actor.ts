/** The curriculum actor: the curriculum machine, started, with its `horizon.changed` emissions. */
import { createActor, type ActorRefFrom } from 'xstate';
import { curriculumMachine, type CurriculumInput } from '../machines/curriculum.machine.ts';

export type CurriculumActorRef = ActorRefFrom<typeof curriculumMachine>;

export function createCurriculumActor(input: CurriculumInput): CurriculumActorRef {
  return createActor(curriculumMachine, { input }).start();
}
