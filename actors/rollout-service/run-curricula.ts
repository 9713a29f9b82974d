/**
 * The adaptive curricula of the rollout service, one curriculum actor per run id the trainer names
 * (docs/trainers.md, "The rollout service"). The service runs a trainer's batches but does not
 * train, so the trainer's step number is the clock:
 *
 *   - a batch for step s runs with the horizon the curriculum decided after the last step before s
 *     that had a finished batch (the schedule's `min` before any);
 *   - the batches of one step (one per GRPO group set) are pooled: when the first batch of a later
 *     step is asked for, the finished batches of the step before are fed as one `LEARNER.STEPPED`
 *     (pooled-step-stats.ts) and the curriculum decides;
 *   - a batch of a step already decided (it finished after a later step was asked for), a
 *     cancelled one and a failed one feed nothing; a step with nothing fed is not decided on;
 *   - a step going backwards is refused (`curriculum.step`), as is a run asked with another
 *     schedule than its first (`curriculum.schedule`: a new schedule is a new run id).
 *
 * At most `maxRuns` runs are kept; a new run evicts the least recently used one, and a run not
 * asked for in `idleMs` is forgotten (a run id seen again starts afresh at `min`).
 */
import type { RolloutSummary } from '../../streams/events.ts';
import type { CurriculumDecision } from '../../machines/curriculum.machine.ts';
import { formatSchedule, type AdaptiveSchedule } from '../../machines/schedule.ts';
import { createCurriculumActor, type CurriculumActorRef } from '../curriculum.actor.ts';
import { pooledStepStats, type FinishedBatch } from './pooled-step-stats.ts';
import { BatchRefused } from './token-batch.ts';

/** Runs kept at once by default. */
export const DEFAULT_MAX_RUNS = 64;
/** A run not asked for in this long (ms) is forgotten: one hour by default. */
export const DEFAULT_RUN_IDLE_MS = 3_600_000;

// The service's seam (servers/rollout-server/run-curricula.ts) has the same shape; actors/ may not
// import servers/ (docs/architecture.md), so whoever composes the two checks that they fit.

/** One batch's ask: the run, its schedule, the trainer's step, the batch's distinct tasks. */
export interface CurriculumAsk {
  readonly run: string;
  readonly schedule: AdaptiveSchedule;
  readonly step: number;
  readonly tasks: number;
}

/** One batch's place in its run: its horizon, the decision in force, how its outcome goes back. */
export interface CurriculumTicket {
  readonly horizon: number;
  readonly decision: CurriculumDecision | null;
  /** Pools the finished batch's summary into its step; false when its step was already decided or the run forgotten. */
  finished(summary: unknown): boolean;
  /** A cancelled or failed batch: feeds nothing. */
  dropped(): void;
}

export interface RunCurriculaOptions {
  readonly maxRuns?: number;
  readonly idleMs?: number;
  /** The clock (ms), for tests. */
  readonly now?: () => number;
}

interface Run {
  readonly id: string;
  readonly schedule: string;
  readonly actor: CurriculumActorRef;
  /** The highest step asked for; its finished batches are pooled in `finished`. */
  step: number;
  finished: FinishedBatch[];
  lastUsed: number;
  gone: boolean;
}

export class AdaptiveRunCurricula {
  readonly #runs = new Map<string, Run>();
  readonly #maxRuns: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(options: RunCurriculaOptions = {}) {
    this.#maxRuns = options.maxRuns ?? DEFAULT_MAX_RUNS;
    this.#idleMs = options.idleMs ?? DEFAULT_RUN_IDLE_MS;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#runs.size;
  }

  open(ask: CurriculumAsk): CurriculumTicket {
    this.#expire();
    const run = this.#runOf(ask);
    if (ask.step < run.step) {
      throw new BatchRefused(`curriculum.step: step ${ask.step} is before step ${run.step}, which run "${run.id}" already asked for; a run's steps only go forward`, 'curriculum.step');
    }
    if (ask.step > run.step) this.#decide(run, ask.step);
    run.lastUsed = this.#now();
    const { horizon, lastDecision } = run.actor.getSnapshot().context;
    const step = ask.step;
    return {
      horizon,
      decision: lastDecision,
      finished: (summary) => {
        if (run.gone || run.step !== step) return false;
        run.finished.push({ summary: summary as RolloutSummary, tasks: ask.tasks });
        run.lastUsed = this.#now();
        return true;
      },
      dropped: () => undefined,
    };
  }

  /** The run's step advances to `next`: its pooled batches, if any, are fed and decided on. */
  #decide(run: Run, next: number): void {
    if (run.finished.length > 0) {
      const { horizon } = run.actor.getSnapshot().context;
      run.actor.send({ type: 'LEARNER.STEPPED', step: run.step, metrics: pooledStepStats(run.step, horizon, run.finished) });
    }
    run.finished = [];
    run.step = next;
  }

  #runOf(ask: CurriculumAsk): Run {
    const schedule = formatSchedule(ask.schedule);
    const known = this.#runs.get(ask.run);
    if (known !== undefined) {
      if (known.schedule !== schedule) {
        throw new BatchRefused(`curriculum.schedule: run "${ask.run}" follows "${known.schedule}", not "${schedule}"; a run keeps its schedule (name a new run to change it)`, 'curriculum.schedule');
      }
      // Most recently used last, so the map's first entry is the one to evict.
      this.#runs.delete(ask.run);
      this.#runs.set(ask.run, known);
      return known;
    }
    while (this.#runs.size >= this.#maxRuns) this.#forget(this.#runs.keys().next().value as string);
    const run: Run = {
      id: ask.run, schedule,
      actor: createCurriculumActor({ schedule: ask.schedule, completedSteps: ask.step - 1 }),
      step: ask.step, finished: [], lastUsed: this.#now(), gone: false,
    };
    this.#runs.set(ask.run, run);
    return run;
  }

  #expire(): void {
    const now = this.#now();
    for (const run of [...this.#runs.values()]) if (now - run.lastUsed > this.#idleMs) this.#forget(run.id);
  }

  #forget(id: string): void {
    const run = this.#runs.get(id);
    if (run === undefined) return;
    run.gone = true;
    run.actor.stop();
    this.#runs.delete(id);
  }
}
