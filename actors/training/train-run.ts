/**
 * A training run from its options to its summary, as a composition of steps: open the run
 * (open-run.ts), start the learner threads, build the agent (training-policy.ts), the curriculum
 * and the learner's effects (training-effects.ts), run the learner (run-learner.ts), finish
 * (finish-training.ts). The training system loads this module when it runs, so importing
 * actorgym loads no TensorFlow.js.
 */
import type { Subject } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import { parseSchedule, type Schedule } from '../../machines/schedule.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { CurriculumState } from '../../machines/curriculum.machine.ts';
import { checkpointKind } from '../../learner/checkpoint/read.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import { createCurriculumActor } from '../curriculum.actor.ts';
import { finishTraining } from './finish-training.ts';
import { withLearnerThreads } from './learner-threads.ts';
import { openTrainingRun } from './open-run.ts';
import type { RunDir } from './run-dir.ts';
import type { RunModel } from './run-model.ts';
import { runLearner } from './run-learner.ts';
import { TrainingEffects } from './training-effects.ts';
import type { RunConfigOptions, TrainingOptions, TrainingSummary } from './training-options.ts';
import { transformerRunModel } from './transformer-run-model.ts';
import type { TrainingStop } from './training-stop.ts';
import type { TokenizerJSON } from '../../policy/tokenizer.ts';
import type { TrainingProducer } from '../worker/training-producer.ts';

export interface TrainRunInput {
  readonly options: TrainingOptions;
  readonly env: EnvDefinition;
  readonly configOptions: RunConfigOptions;
  readonly freshConfig: TrainingConfig | undefined;
  readonly clock: RunClock;
  readonly events: Subject<TrainingEvent>;
  readonly stop: TrainingStop;
}

export async function trainRun(input: TrainRunInput): Promise<TrainingSummary> {
  const config = input.freshConfig;
  const from = input.options.resume ?? input.options.init;
  if (config?.hf !== undefined || (from !== undefined && (await checkpointKind(from)) === 'hf')) {
    const { trainHfRun } = await import('./hf/hf-train-run.ts');
    return trainHfRun(input);
  }
  const opened = await openTrainingRun(input);
  return withLearnerThreads(opened, input.options.learnerThreads, (parallel) => {
    const { config, backend, models, runDir, resumed } = opened;
    const model = transformerRunModel(input.env, models, config, resumed, parallel);
    return runTraining(input, {
      config, backend, runDir, learnerThreads: parallel ? 2 : 1,
      fromStep: resumed?.state.step ?? 0, policyVersion: resumed?.state.policyVersion ?? 0, curriculum: resumed?.state.curriculum,
      tokenizer: models.tokenizer.toJSON(),
    }, model);
  });
}

/** A run opened by its kind's step 1: where it starts, and where it writes. */
export interface StartedRun {
  readonly config: TrainingConfig;
  readonly backend: string;
  readonly runDir: RunDir | undefined;
  readonly learnerThreads: number;
  readonly fromStep: number;
  readonly policyVersion: number;
  /** The curriculum state of a resumed run. */
  readonly curriculum: CurriculumState | undefined;
  /** Our transformer's tokenizer (what a remote producer's workers build their policy with); none for a Hugging Face model. */
  readonly tokenizer?: TokenizerJSON;
}

/** Steps 3–5, the same for every model: curriculum, learner effects, the learner actor, the finish; frees `model` at the end. */
export async function runTraining(input: TrainRunInput, run: StartedRun, model: RunModel): Promise<TrainingSummary> {
  const { env, events, clock, options } = input;
  const { config, backend, runDir, fromStep } = run;
  let remote: TrainingProducer | undefined;
  try {
    const schedule = (parseSchedule(config.schedule) as { ok: true; value: Schedule }).value;
    const curriculum = createCurriculumActor({ schedule, completedSteps: fromStep, ...(run.curriculum ? { state: run.curriculum } : {}) });
    // Held back until the step's learner.stepped is out, so the stream reads step → decision → change.
    const curriculumEvents: TrainingEvent[] = [];
    curriculum.on('curriculum.decided', (decided) => curriculumEvents.push({ ...decided, t: clock.now() }));
    curriculum.on('horizon.changed', (change) => curriculumEvents.push({ ...change, t: clock.now() }));
    runDir?.init({ ...config, backend }, fromStep);
    events.next({
      type: 'training.started', t: clock.now(), env: env.spec.id, algo: config.algo, backend, learnerThreads: run.learnerThreads, fromStep, targetSteps: config.steps,
      out: runDir?.root ?? '', parameters: model.parameters, vocabSize: model.vocabSize,
    });
    const halt = new AbortController();
    remote = await options.producer?.({ config, tokenizer: run.tokenizer, policyVersion: run.policyVersion, exportWeights: (v) => model.exportWeights(v) });
    const effects = new TrainingEffects({
      env, config, model, curriculum, runDir, events, clock, halt: halt.signal, options, fromStep, policyVersion: run.policyVersion, ...(remote ? { remote } : {}),
    });
    const learned = await runLearner({
      effects, curriculum, curriculumEvents, runDir, events, clock, stop: input.stop, halt, maxMinutes: options.maxMinutes,
      input: { completedSteps: fromStep, targetSteps: config.steps, policyVersion: run.policyVersion, checkpointEvery: runDir ? config.checkpointEvery : 0 },
    });
    // A collection the producer ran ahead for a step the learner will not train stops with it.
    if (!halt.signal.aborted) halt.abort(new Error('the learner has ended'));
    effects.dispose();
    curriculum.stop();
    return await finishTraining({
      env, config, backend, model, runDir, fromStep, learned, effects, events, clock, maxMinutes: options.maxMinutes, evaluationSignal: input.stop.evaluation.signal,
    });
  } finally {
    await remote?.close();
    model.dispose();
  }
}
