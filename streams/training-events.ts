/**
 * The event stream of a training run: every rollout event of every learner step (streams/events.ts)
 * plus the learner's own, all JSON-serialisable, with `t` in milliseconds since the Unix epoch
 * from the run's injected clock (as in streams/events.ts).
 */
import type { RolloutSummary, RunEvent } from './events.ts';

export interface TrainingStarted {
  readonly type: 'training.started';
  readonly t: number;
  readonly env: string;
  readonly algo: string;
  /** The tfjs backend in use ('wasm', 'cpu', 'tensorflow'). */
  readonly backend: string;
  /** Threads computing the learner's gradients: 2 when a worker takes half of each minibatch. */
  readonly learnerThreads: number;
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
  /** The metrics.jsonl line of this step, less the curriculum's decision (`curriculum.decided` carries it). */
  readonly metrics: Readonly<Record<string, number>>;
}

/**
 * The curriculum's decision after learner step `step` (every step, also when it holds): the
 * horizon moves from `from` to `to` at step `step + 1`. `signals` are what it read — this step's
 * success, turns, truncation share and entropy, and for adaptive schedules their trends over the
 * window (docs/curriculum.md); null where unknown.
 */
export interface CurriculumDecided {
  readonly type: 'curriculum.decided';
  readonly t: number;
  readonly step: number;
  readonly from: number;
  readonly to: number;
  readonly decision: 'raise' | 'hold' | 'back';
  readonly reason: string;
  readonly signals: Readonly<Record<string, number | null>>;
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
  /** Why it ended before its target step, when a time budget ended it (status done). */
  readonly reason?: string;
}

/**
 * A learner step's collection is on hold: some of its slots were aborted (their env servers were
 * lost) and no env server is reachable. The learner never trains on a batch cut short by aborts;
 * it waits here, and `training.resumed` follows once a server is back.
 */
export interface TrainingPaused {
  readonly type: 'training.paused';
  readonly t: number;
  /** The learner step being collected. */
  readonly step: number;
  /** Task slots of the step still to collect. */
  readonly slots: number;
  readonly reason: string;
}

export interface TrainingResumed {
  readonly type: 'training.resumed';
  readonly t: number;
  readonly step: number;
  readonly slots: number;
  readonly pausedSeconds: number;
}

export type TrainingEvent =
  | RunEvent
  | TrainingStarted
  | LearnerStepped
  | CurriculumDecided
  | CheckpointSaved
  | EvaluationFinished
  | TrainingFinished
  | TrainingPaused
  | TrainingResumed;
