/**
 * An SFT run from its options to its summary, as a composition of steps: open the run
 * (open-sft-run.ts), start the learner threads, turn the demos into rows (sft-rows.ts), run the
 * epochs (sft-epochs.ts), summarize. The SFT system loads this module when it runs, so importing
 * actorgym loads no TensorFlow.js.
 */
import type { Subject } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import { curriculumState, type CurriculumState } from '../../machines/curriculum.machine.ts';
import { parseSchedule, type Schedule } from '../../machines/schedule.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { LearnerArgs } from '../../learner/args.ts';
import type { DataParallelGrads } from '../../learner/data-parallel.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import { createCurriculumActor } from '../curriculum.actor.ts';
import { withLearnerThreads } from '../training/learner-threads.ts';
import { openSftRun, type OpenedSftRun } from './open-sft-run.ts';
import { runSftEpochs, type SftEpochsOptions } from './sft-epochs.ts';
import { checkpointKind } from '../../learner/checkpoint/read.ts';
import type { LearnerOptimizer } from '../../learner/optimizer.ts';
import type { ScoringModel } from '../../learner/scoring-model.ts';
import type { RunModel } from '../training/run-model.ts';
import { transformerRunModel } from '../training/transformer-run-model.ts';
import type { SftOptions, SftSettingsWithoutDigest, SftSummary } from './sft-options.ts';
import { demosSummary, sftRows } from './sft-rows.ts';

export interface SftRunInput {
  readonly options: SftOptions;
  readonly env: EnvDefinition;
  readonly settings: SftSettingsWithoutDigest;
  readonly freshConfig: TrainingConfig;
  readonly clock: RunClock;
  readonly events: Subject<TrainingEvent>;
  readonly stopReason: () => string | undefined;
}

export async function sftRun(input: SftRunInput): Promise<SftSummary> {
  if (input.freshConfig.hf !== undefined || (input.options.resume !== undefined && (await checkpointKind(input.options.resume)) === 'hf')) {
    const { sftHfRun } = await import('./hf-sft-run.ts');
    return sftHfRun(input);
  }
  const opened = await openSftRun(input);
  return withLearnerThreads(opened, input.options.learnerThreads, async (parallel) => {
    const { config, models, demos } = opened;
    const rows = sftRows(models, config, opened.settings, demos);
    const run = transformerRunModel(input.env, models, config, undefined, parallel);
    try {
      return await runSft(input, { ...opened, learnerThreads: parallel ? 2 : 1 }, {
        model: models.model, optimizer: models.optimizer, run, parameters: models.model.parameterCount, vocabSize: models.tokenizer.vocabSize,
      }, { rows, summary: demosSummary(demos, rows) }, parallel);
    } finally {
      rows.inner.dispose();
      run.dispose();
    }
  });
}

/** An SFT run opened by its kind's step 1. */
export type StartedSft = Pick<OpenedSftRun, 'config' | 'settings' | 'backend' | 'dir' | 'fromEpoch'> & { readonly learnerThreads: number };

/** What the epochs train and how it is described. */
export interface SftLearner {
  readonly model: ScoringModel;
  readonly optimizer: LearnerOptimizer;
  readonly run: Pick<RunModel, 'save' | 'evaluate'>;
  readonly parameters: number;
  readonly vocabSize: number;
}

/** Steps 3–4, the same for every model: the epochs and the summary. */
export async function runSft(
  input: SftRunInput,
  opened: StartedSft,
  learner: SftLearner,
  data: { readonly rows: SftEpochsOptions['rows']; readonly summary: SftSummary['demos'] },
  parallel?: DataParallelGrads,
): Promise<SftSummary> {
  const { env, events, clock, options } = input;
  const { config, settings, backend, dir, fromEpoch } = opened;
  const args: LearnerArgs = { ...config, lr: settings.lr, minibatch: settings.minibatch, objective: 'cross-entropy' };
  const savedConfig = { ...config, sft: settings };
  const curriculum = initialCurriculum(config);
  dir?.init({ ...savedConfig, backend }, fromEpoch);
  events.next({
    type: 'training.started', t: clock.now(), env: env.spec.id, algo: 'sft', backend, learnerThreads: opened.learnerThreads, fromStep: fromEpoch,
    targetSteps: settings.epochs, out: dir?.root ?? '', parameters: learner.parameters, vocabSize: learner.vocabSize,
  });
  const started = performance.now();
  const ran = await runSftEpochs({
    env, config, settings, args, learner, rows: data.rows, parallel, dir, savedConfig, curriculum, fromEpoch, events, clock,
    maxMinutes: options.maxMinutes, stopReason: input.stopReason,
  }, started);
  const { epoch, last, lastEval, budgetReached } = ran;
  const stopReason = input.stopReason();
  const done = epoch >= settings.epochs || budgetReached;
  events.next({ type: 'training.finished', t: clock.now(), steps: epoch, status: done ? 'done' : 'stopped', ...(budgetReached ? { reason: `time budget of ${options.maxMinutes} min` } : stopReason ? { reason: stopReason } : {}) });
  events.complete();
  const { results: _results, ...evaluation } = lastEval ?? { results: [] };
  return {
    status: done ? 'done' : 'stopped', env: env.spec.id, epochs: epoch, fromEpoch, backend,
    out: dir?.root, checkpoint: ran.checkpointPath ?? (dir && epoch > 0 ? dir.checkpointDir : undefined), metricsFile: dir?.metricsFile,
    demos: data.summary,
    trainLoss: last?.loss, valLoss: last?.valLoss !== undefined && Number.isFinite(last.valLoss) ? last.valLoss : undefined,
    trainSeconds: (performance.now() - started) / 1000,
    testSuccessRate: lastEval?.successRate, testMeanReward: lastEval?.meanReward,
    evaluation: lastEval ? (evaluation as Omit<RolloutSummary, 'results'>) : undefined,
    config, sft: settings,
  };
}

/** The curriculum's state at step 0: SFT has no horizon schedule of its own, but its checkpoints carry one. */
function initialCurriculum(config: TrainingConfig): CurriculumState {
  const schedule = (parseSchedule(config.schedule) as { ok: true; value: Schedule }).value;
  const curriculum = createCurriculumActor({ schedule, completedSteps: 0 });
  const state = curriculumState(curriculum.getSnapshot().context);
  curriculum.stop();
  return state;
}
