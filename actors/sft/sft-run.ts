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
import { runSftEpochs } from './sft-epochs.ts';
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
  const opened = await openSftRun(input);
  return withLearnerThreads(opened, input.options.learnerThreads, (parallel) => train(input, opened, parallel));
}

async function train(input: SftRunInput, opened: OpenedSftRun, parallel: DataParallelGrads | undefined): Promise<SftSummary> {
  const { env, events, clock, options } = input;
  const { config, settings, backend, models, dir, demos, fromEpoch } = opened;
  const rows = sftRows(models, config, settings, demos);
  const args: LearnerArgs = { ...config, lr: settings.lr, minibatch: settings.minibatch, objective: 'cross-entropy' };
  const savedConfig = { ...config, sft: settings };
  const curriculum = initialCurriculum(config);
  dir?.init({ ...savedConfig, backend }, fromEpoch);
  events.next({
    type: 'training.started', t: clock.now(), env: env.spec.id, algo: 'sft', backend, learnerThreads: parallel ? 2 : 1, fromStep: fromEpoch,
    targetSteps: settings.epochs, out: dir?.root ?? '', parameters: models.model.parameterCount, vocabSize: models.tokenizer.vocabSize,
  });
  const started = performance.now();
  const ran = await runSftEpochs({
    env, config, settings, args, models, rows, parallel, dir, savedConfig, curriculum, fromEpoch, events, clock,
    maxMinutes: options.maxMinutes, stopReason: input.stopReason,
  }, started);
  const { epoch, last, lastEval, budgetReached } = ran;
  const stopReason = input.stopReason();
  const done = epoch >= settings.epochs || budgetReached;
  events.next({ type: 'training.finished', t: clock.now(), steps: epoch, status: done ? 'done' : 'stopped', ...(budgetReached ? { reason: `time budget of ${options.maxMinutes} min` } : stopReason ? { reason: stopReason } : {}) });
  events.complete();
  rows.inner.dispose();
  const { results: _results, ...evaluation } = lastEval ?? { results: [] };
  return {
    status: done ? 'done' : 'stopped', env: env.spec.id, epochs: epoch, fromEpoch, backend,
    out: dir?.root, checkpoint: ran.checkpointPath ?? (dir && epoch > 0 ? dir.checkpointDir : undefined), metricsFile: dir?.metricsFile,
    demos: demosSummary(demos, rows),
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
