/**
 * The last step of a training run: a failed learner fails the run; otherwise the final checkpoint
 * (when the last step has none), `training.finished`, the test evaluation of a run that is done,
 * and the summary.
 */
import type { Subject } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { RunModel } from './run-model.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import { orderMetrics } from './metrics.ts';
import type { RunDir } from './run-dir.ts';
import type { LearnerRun } from './run-learner.ts';
import type { TrainingEffects } from './training-effects.ts';
import type { TrainingSummary } from './training-options.ts';

export interface FinishTrainingOptions {
  readonly env: EnvDefinition;
  readonly config: TrainingConfig;
  readonly backend: string;
  readonly model: RunModel;
  readonly runDir: RunDir | undefined;
  readonly fromStep: number;
  readonly learned: LearnerRun;
  readonly effects: TrainingEffects;
  readonly events: Subject<TrainingEvent>;
  readonly clock: RunClock;
  readonly maxMinutes: number | undefined;
  /** Aborted by a stop during the evaluation. */
  readonly evaluationSignal: AbortSignal;
}

export async function finishTraining(o: FinishTrainingOptions): Promise<TrainingSummary> {
  const { config, runDir, events, clock, learned: { final, budgetReached } } = o;
  const ctx = final.context;
  if (final.value === 'failed' || final.status === 'error') {
    events.next({ type: 'training.finished', t: clock.now(), steps: ctx.step, status: 'failed' });
    events.complete();
    throw new Error(`training failed at step ${ctx.step + 1}: ${ctx.error ?? String(final.error)}`);
  }
  let checkpointPath = runDir && ctx.lastCheckpointStep === ctx.step && ctx.step > o.fromStep ? runDir.checkpointDir : undefined;
  if (runDir && ctx.step > ctx.lastCheckpointStep) {
    checkpointPath = await o.effects.save(ctx.step, ctx.policyVersion);
    events.next({ type: 'checkpoint.saved', t: clock.now(), step: ctx.step, path: checkpointPath });
  }
  const status = final.value === 'done' || budgetReached ? 'done' : 'stopped';
  events.next({ type: 'training.finished', t: clock.now(), steps: ctx.step, status, ...(budgetReached ? { reason: `time budget of ${o.maxMinutes} min` } : {}) });
  const evaluation = status === 'done' && config.evalEpisodes !== 0 ? await finalEvaluation(o, ctx.step) : undefined;
  events.complete();
  const { results: _results, ...evalSummary } = evaluation ?? { results: [] };
  return {
    status, steps: ctx.step, fromStep: o.fromStep, env: o.env.spec.id, algo: config.algo, backend: o.backend,
    out: runDir?.root, checkpoint: checkpointPath ?? (runDir && ctx.step > 0 ? runDir.checkpointDir : undefined),
    metricsFile: runDir?.metricsFile, lastMetrics: ctx.lastMetrics ? orderMetrics({ ...ctx.lastMetrics, step: ctx.step }) : undefined,
    trainSeconds: o.learned.trainSeconds,
    testSuccessRate: evaluation?.successRate, testMeanReward: evaluation?.meanReward, testMeanTurns: evaluation?.meanTurns,
    evaluation: evaluation ? (evalSummary as Omit<RolloutSummary, 'results'>) : undefined,
    timeBudgetReached: budgetReached,
    config,
  };
}

/** The test split with the trained model, at the run's evaluation temperature and horizon. */
async function finalEvaluation(o: FinishTrainingOptions, step: number): Promise<RolloutSummary> {
  const { env, config, model, events, clock } = o;
  const evaluation = await model.evaluate({
    env, split: 'test',
    ...(config.evalEpisodes !== 'all' ? { episodes: config.evalEpisodes } : {}),
    horizon: config.evalHorizon === 'default' ? env.spec.defaultHorizon : config.evalHorizon,
    temperature: config.evalTemperature, seed: config.seed, concurrency: config.concurrency,
    name: `${config.algo}@${step}`, events: { next: (e) => events.next(e) }, signal: o.evaluationSignal,
  });
  events.next({ type: 'evaluation.finished', t: clock.now(), summary: evaluation });
  return evaluation;
}
