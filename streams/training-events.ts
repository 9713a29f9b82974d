/**
 * The event stream of a training run: every rollout event of every learner step (streams/events.ts)
 * plus the learner's own, all JSON-serialisable with `t` in milliseconds of the run's clock.
 */
import type { RolloutSummary, RunEvent } from './events.ts';

export interface TrainingStarted {
  readonly type: 'training.started';
  readonly t: number;
  readonly env: string;
  readonly algo: string;
  /** The tfjs backend in use ('wasm', 'cpu', 'tensorflow'). */
  readonly backend: string;
  readonly fromStep: number;
  readonly targetSteps: number;
  readonly out: string;
  readonly parameters: number;
  readonly vocabSize: number;
}

export interface LearnerStepped {
  readonly type: 'learner.stepped';
  readonly t: number;
  readonly step: number;
  readonly policyVersion: number;
  /** The metrics.jsonl line of this step. */
  readonly metrics: Readonly<Record<string, number>>;
}

export interface CheckpointSaved {
  readonly type: 'checkpoint.saved';
  readonly t: number;
  readonly step: number;
  readonly path: string;
}

export interface EvaluationFinished {
  readonly type: 'evaluation.finished';
  readonly t: number;
  readonly summary: RolloutSummary;
}

export interface TrainingFinished {
  readonly type: 'training.finished';
  readonly t: number;
  readonly steps: number;
  /** How the learner ended: the target was reached, stop() was called, or an effect failed. */
  readonly status: 'done' | 'stopped' | 'failed';
}

export type TrainingEvent = RunEvent | TrainingStarted | LearnerStepped | CheckpointSaved | EvaluationFinished | TrainingFinished;
