/**
 * A Hugging Face model's training run: open it (open-hf-run.ts), make its run model
 * (hf-run-model.ts), and run the same curriculum, learner actor and finish as our transformer
 * (train-run.ts `runTraining`). One learner thread: the data-parallel worker (learner/data-parallel.ts)
 * holds our transformer only.
 */
import type { TrainingSummary } from '../training-options.ts';
import { runTraining, type TrainRunInput } from '../train-run.ts';
import { hfRunModel } from './hf-run-model.ts';
import { openHfRun } from './open-hf-run.ts';

export async function trainHfRun(input: TrainRunInput): Promise<TrainingSummary> {
  const { options } = input;
  if (options.learnerThreads !== undefined && options.learnerThreads !== 1) {
    throw new Error(`a Hugging Face model trains on one learner thread (--learner-threads ${options.learnerThreads} is for our transformer)`);
  }
  const opened = await openHfRun({
    env: input.env, backend: options.backend, resume: options.resume, init: options.init, out: options.out,
    configOptions: input.configOptions, freshConfig: input.freshConfig,
  });
  const { config, backend, runDir, models, resumed } = opened;
  try {
    // Asynchronous training (maxStaleness > 0): the agent decodes with its own copy of the
    // trained weights, swapped between steps (hf-run-model.ts).
    const model = hfRunModel(input.env, models, config, resumed?.state.policyVersion ?? 0);
    return await runTraining(input, {
      config, backend, runDir, learnerThreads: 1,
      fromStep: resumed?.state.step ?? 0, policyVersion: resumed?.state.policyVersion ?? 0, curriculum: resumed?.state.curriculum,
    }, model);
  } finally {
    models.dispose();
  }
}
