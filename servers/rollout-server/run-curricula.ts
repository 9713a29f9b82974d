/**
 * The seam to the adaptive curricula the service keeps, one per run id the trainer names
 * (`curriculum: { schedule: "adaptive:…", step, run }`). servers/ may not import the actors
 * (docs/architecture.md), so the keeper — actors/rollout-service/run-curricula.ts, one curriculum
 * actor per run — is handed in by whoever composes the service, as the batch runner is. That class
 * has this shape without importing it (actors/ may not import servers/ either): the composer's
 * types check the fit.
 */
import type { AdaptiveSchedule } from '../../machines/schedule.ts';

/** What the keeper is asked for one batch: the run, its schedule, the trainer's step, the batch's task groups. */
export interface CurriculumAsk {
  readonly run: string;
  readonly schedule: AdaptiveSchedule;
  readonly step: number;
  /** Distinct tasks of the batch (its GRPO groups): the n of the success rate's noise. */
  readonly tasks: number;
}

/** One batch's place in its run's curriculum: the horizon it runs with, and how its outcome goes back. */
export interface CurriculumTicket {
  readonly horizon: number;
  /** The run's latest decision (the one that set `horizon`), as JSON; null before the first. */
  readonly decision: unknown;
  /** The batch finished (every episode scored): pool its summary into its step's stats. False when it came too late (its step was already decided) or the run expired. */
  finished(summary: unknown): boolean;
  /** The batch was cancelled or failed: it feeds nothing. */
  dropped(): void;
}

/**
 * Keeps the runs' curricula. `open` throws an error carrying a string `field` (answered 400) for a
 * step going backwards (`curriculum.step`) or a run asked with another schedule (`curriculum.schedule`).
 */
export interface RunCurricula {
  open(ask: CurriculumAsk): CurriculumTicket;
  /** Runs kept now. */
  readonly size: number;
}
