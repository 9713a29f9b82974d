/**
 * Step 3 of an SFT run: epochs until the target, a stop or the time budget. After each whole
 * epoch: the validation loss, the test evaluation when due, one metrics line, `learner.stepped`
 * and a checkpoint. A cut epoch is not saved, so a resume is exact.
 */
import type { Subject } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { CurriculumState } from '../../machines/curriculum.machine.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { LearnerArgs } from '../../learner/args.ts';
import type { DataParallelGrads } from '../../learner/data-parallel.ts';
import type { LearnerOptimizer } from '../../learner/optimizer.ts';
import type { ScoringModel } from '../../learner/scoring-model.ts';
import { sftEpoch, validationLoss } from '../../learner/sft/sft-epoch.ts';
import type { SftRow } from '../../learner/sft/demo-rows.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import type { RunDir } from '../training/run-dir.ts';
import type { RunModel } from '../training/run-model.ts';
import type { SftSettings } from './sft-settings.ts';

export interface SftEpochsOptions {
  readonly env: EnvDefinition;
  readonly config: TrainingConfig;
  readonly settings: SftSettings;
  readonly args: LearnerArgs;
  /** What the epochs train: the scored model, its optimizer, and the run's model for checkpoints and evaluations. */
  readonly learner: { readonly model: ScoringModel; readonly optimizer: LearnerOptimizer; readonly run: Pick<RunModel, 'save' | 'evaluate'> };
  readonly rows: { readonly train: { readonly rows: readonly SftRow[] }; readonly validation: { readonly rows: readonly SftRow[] } };
  readonly parallel: DataParallelGrads | undefined;
  readonly dir: RunDir | undefined;
  /** The configuration saved with every checkpoint (the run's, with the SFT settings). */
  readonly savedConfig: Record<string, unknown>;
  readonly curriculum: CurriculumState;
  readonly fromEpoch: number;
  readonly events: Subject<TrainingEvent>;
  readonly clock: RunClock;
  readonly maxMinutes: number | undefined;
  /** The stop asked for, if any: the epoch then ends at its next update. */
  readonly stopReason: () => string | undefined;
}

export interface SftEpochsResult {
  /** Whole epochs done (the step counter at the end). */
  readonly epoch: number;
  readonly last: Readonly<Record<string, number>> | undefined;
  readonly checkpointPath: string | undefined;
  readonly budgetReached: boolean;
  readonly lastEval: RolloutSummary | undefined;
}

export async function runSftEpochs(o: SftEpochsOptions, started: number): Promise<SftEpochsResult> {
  const { settings, learner, events, clock } = o;
  let epoch = o.fromEpoch;
  let last: Record<string, number> | undefined;
  let checkpointPath: string | undefined;
  let budgetReached = false;
  let lastEval: RolloutSummary | undefined;
  while (epoch < settings.epochs && o.stopReason() === undefined) {
    const t0 = performance.now();
    const { metrics, complete } = await sftEpoch({
      model: learner.model, optimizer: learner.optimizer, args: o.args, rows: o.rows.train.rows, seed: o.config.seed, epoch: epoch + 1,
      ...(o.parallel ? { parallel: o.parallel } : {}), stopped: () => o.stopReason() !== undefined,
    });
    if (!complete) break;
    epoch += 1;
    const valLoss = await validationLoss(learner.model, o.rows.validation.rows, o.args, o.parallel);
    const due = epoch === settings.epochs || (settings.evalEvery > 0 && epoch % settings.evalEvery === 0);
    const budget = o.maxMinutes !== undefined && performance.now() - started >= o.maxMinutes * 60_000;
    if (budget) budgetReached = true;
    lastEval = due || budget ? await sftEvaluation(o, epoch) : undefined;
    last = {
      step: epoch, loss: metrics.loss!, valLoss, entropy: metrics.entropy!, gradNorm: metrics.gradNorm!, updates: metrics.updates!,
      skippedUpdates: metrics.skippedUpdates!, trainedTokens: metrics.trainedTokens!, epochSeconds: (performance.now() - t0) / 1000,
      seconds: (performance.now() - started) / 1000,
      ...(lastEval ? { testSuccessRate: lastEval.successRate, testMeanReward: lastEval.meanReward, testMeanTurns: lastEval.meanTurns } : {}),
    };
    o.dir?.appendMetrics(last);
    events.next({ type: 'learner.stepped', t: clock.now(), step: epoch, policyVersion: epoch, metrics: last });
    if (o.dir) checkpointPath = await saveEpoch(o, o.dir, epoch);
    if (budget) break;
  }
  return { epoch, last, checkpointPath, budgetReached, lastEval };
}

async function saveEpoch(o: SftEpochsOptions, dir: RunDir, epoch: number): Promise<string> {
  const path = await o.learner.run.save(dir.checkpointDir, { step: epoch, policyVersion: epoch, curriculum: o.curriculum, seed: o.config.seed, config: o.savedConfig });
  o.events.next({ type: 'checkpoint.saved', t: o.clock.now(), step: epoch, path });
  return path;
}

/** The test evaluation of an epoch (none with `evalEpisodes: 0`). */
async function sftEvaluation(o: SftEpochsOptions, epoch: number): Promise<RolloutSummary | undefined> {
  const { env, config, settings } = o;
  if (settings.evalEpisodes === 0) return undefined;
  const summary = await o.learner.run.evaluate({
    env, split: 'test', ...(settings.evalEpisodes !== 'all' ? { episodes: settings.evalEpisodes } : {}),
    horizon: config.evalHorizon === 'default' ? env.spec.defaultHorizon : config.evalHorizon,
    temperature: config.evalTemperature, seed: config.seed, concurrency: config.concurrency, name: `sft@${epoch}`,
  });
  o.events.next({ type: 'evaluation.finished', t: o.clock.now(), summary });
  return summary;
}
