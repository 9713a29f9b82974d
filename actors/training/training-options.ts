/** The training system's options, summary and handle (actors/training-system.ts). */
import type { TrainingProducerFactory } from '../worker/training-producer.ts';
import type { Observable } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { BackendPreference } from '../../policy/backend-preference.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { WriteCheckpointOptions } from '../../learner/checkpoint/write.ts';
import type { TrainingConfig, TrainingOptionsConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';

/** Options of `createTrainingSystem`: the env, algorithm, schedule and steps, the run directory, resume or init, backend and threads, and every training setting of the run's config. */
export interface TrainingOptions extends TrainingOptionsConfig {
  readonly env: EnvDefinition | string;
  /** Learner steps of the whole run; a resumed run continues up to this step. */
  readonly steps: number;
  /** Run directory (metrics.jsonl, trajectories/, checkpoint/, config.json); none = nothing written. */
  readonly out?: string;
  /** A checkpoint or run directory to continue from, exactly. */
  readonly resume?: string;
  /**
   * A checkpoint or run directory whose weights start a new run (e.g. after `sft`): its
   * tokenizer, model and input settings are kept, and its weights are also the KL reference.
   */
  readonly init?: string;
  readonly backend?: BackendPreference;
  /**
   * Threads for the learner's gradients, 1 or 2 (learner/data-parallel.ts). Default: 2 on the
   * WebAssembly backend (single-threaded under Node) when the machine has two or more cores,
   * else 1. An exact resume needs the same value, as it needs the same backend.
   */
  readonly learnerThreads?: number;
  readonly maxRetries?: number;
  /** Retries of an episode whose env server was lost, on top of `maxRetries` (rollout system's default 10). */
  readonly maxLostRetries?: number;
  readonly envTimeoutMs?: number;
  readonly clock?: RunClock;
  /**
   * A time budget: after the learner step that brings training time (from the first step's start)
   * to this many minutes, the run ends as done, with its final checkpoint and test evaluation,
   * even if `steps` is not reached. Per invocation, not saved with the run.
   */
  readonly maxMinutes?: number;
  /** Test seam: called at each stage of every checkpoint write (learner/checkpoint/write.ts). */
  readonly onCheckpointStage?: WriteCheckpointOptions['onStage'];
  /**
   * Issue 37 (`actorgym learner`): collect every step through the producer this factory returns
   * (the learner server's, which rollout workers connect to) instead of in this process.
   */
  readonly producer?: TrainingProducerFactory;
}


/** What a training run ends with: its status, steps, final test evaluation, and the paths of its run directory, checkpoint and metrics. */
export interface TrainingSummary {
  readonly status: 'done' | 'stopped';
  /** Learner steps completed (the step counter at the end). */
  readonly steps: number;
  readonly fromStep: number;
  readonly env: string;
  readonly algo: string;
  readonly backend: string;
  readonly out: string | undefined;
  readonly checkpoint: string | undefined;
  readonly metricsFile: string | undefined;
  readonly lastMetrics: Readonly<Record<string, number>> | undefined;
  readonly trainSeconds: number;
  readonly testSuccessRate: number | undefined;
  readonly testMeanReward: number | undefined;
  readonly testMeanTurns: number | undefined;
  readonly evaluation: Omit<RolloutSummary, 'results'> | undefined;
  /** The run ended on `maxMinutes` before its target step. */
  readonly timeBudgetReached: boolean;
  readonly config: TrainingConfig;
}

/** A training system: its `events` (run and training events), `run()` for the summary, and `stop()` (ends after the current effect; a running rollout is never trained on). */
export interface TrainingSystem {
  readonly events: Observable<TrainingEvent>;
  run(): Promise<TrainingSummary>;
  /**
   * Stops after the current effect (a running rollout is cancelled and not trained on); during the
   * final test evaluation, stops it (no new episodes; running ones end as aborted).
   */
  stop(reason?: string): void;
}

/** What remains of the options after the run-level fields: the run's configuration (learner/training-config.ts). */
export function configOptionsOf(options: TrainingOptions) {
  const { env: _env, out: _out, resume: _resume, init: _init, backend: _backend, learnerThreads: _threads, maxRetries: _retries, maxLostRetries: _lostRetries, envTimeoutMs: _timeout, clock: _clock, maxMinutes: _budget, onCheckpointStage: _stage, ...configOptions } = options;
  return configOptions;
}

export type RunConfigOptions = ReturnType<typeof configOptionsOf>;
