/**
 * Synthetic learner-step metrics for the adaptive horizon rule (issue 25, item 5): a policy whose
 * true success is known, observed through the sampling noise of one step's rollouts. A step draws
 * `tasks` tasks from a heterogeneous mix (task difficulty d ~ N(0, 2²), success σ(skill − d), so
 * some tasks are nearly always solved and some nearly never, as in BabyAI's 18 levels) and rolls
 * each out `group` times (GRPO groups). A failed episode runs to the horizon (truncated) 9 times in
 * 10, so at a binding horizon the mean turns over all episodes rise whenever success falls.
 * A successful episode takes about its task's solve length (harder tasks longer) times `stretch`.
 *
 * Each line has the keys the training system's metrics line gives the curriculum
 * (actors/training/metrics.ts `rolloutStats`, and the learner's `groups`).
 */
import { mixSeed, mulberry32, type Rng } from '../../policy/rng.ts';

export interface StepTruth {
  /** True success rate of the policy over the task mix. */
  readonly success: number;
  readonly horizon: number;
  readonly tasks: number;
  readonly group: number;
  /** Multiplier of successful episodes' length (a collapsing policy wanders before it succeeds). Default 1. */
  readonly stretch?: number;
  /** Standard deviation of task difficulty: 2 by default; large makes every task all-or-nothing. */
  readonly spread?: number;
}

const SPREAD = 2;
const FAILURES_TRUNCATED = 0.9;
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

// The task mix as a fixed quadrature of N(0, SPREAD²): skill for a target success is found on it.
const GRID = Array.from({ length: 241 }, (_, i) => -6 + i * 0.05).map((z) => ({ z, w: Math.exp(-z * z / 2) }));
const GRID_W = GRID.reduce((a, g) => a + g.w, 0);
const meanSuccess = (skill: number, spread: number): number => GRID.reduce((a, g) => a + g.w * sigmoid(skill - g.z * spread), 0) / GRID_W;

const skills = new Map<string, number>();

/** The skill at which the mix's mean success is `success` (bisection; meanSuccess is increasing). */
export function skillFor(success: number, spread = SPREAD): number {
  const key = `${success}/${spread}`;
  const known = skills.get(key);
  if (known !== undefined) return known;
  let lo = -10 * (spread + 1);
  let hi = 10 * (spread + 1);
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (meanSuccess(mid, spread) < success) lo = mid;
    else hi = mid;
  }
  skills.set(key, (lo + hi) / 2);
  return (lo + hi) / 2;
}

function normal(rng: Rng): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** One learner step's metrics line, drawn from `rng`. */
export function noisyStep(rng: Rng, truth: StepTruth): Record<string, number> {
  const { horizon, tasks, group, stretch = 1, spread = SPREAD } = truth;
  const skill = skillFor(truth.success, spread);
  let successes = 0;
  let truncated = 0;
  let turns = 0;
  let successTurns = 0;
  for (let t = 0; t < tasks; t++) {
    const z = normal(rng);
    const p = sigmoid(skill - spread * z);
    const solve = Math.max(2, 8 + 3 * z);
    for (let g = 0; g < group; g++) {
      if (rng.next() < p) {
        const n = Math.min(horizon, Math.max(1, Math.round(solve * stretch + 4 * (rng.next() - 0.5))));
        successes += 1;
        successTurns += n;
        turns += n;
      } else if (rng.next() < FAILURES_TRUNCATED) {
        truncated += 1;
        turns += horizon;
      } else {
        turns += 1 + Math.floor(rng.next() * (horizon - 1));
      }
    }
  }
  const episodes = tasks * group;
  return {
    successRate: successes / episodes,
    meanTurns: turns / episodes,
    ...(successes > 0 ? { successTurns: successTurns / successes } : {}),
    truncationRate: truncated / episodes,
    episodes,
    aborted: 0,
    groups: tasks,
    entropy: 0.4,
    updates: 1,
  };
}

/** One run: step i (0-based) drawn from `truthAt(i)`, from its own seeded generator. */
export function noisyRun(seed: number, steps: number, truthAt: (i: number) => StepTruth): Record<string, number>[] {
  const rng = mulberry32(seed);
  return Array.from({ length: steps }, (_, i) => noisyStep(rng, truthAt(i)));
}

/** `windows` independent windows of `window` steps each, every step drawn from `truthAt(i)` (i = position in the window). */
export function noisyWindows(seed: number, windows: number, window: number, truthAt: (i: number) => StepTruth): Record<string, number>[][] {
  return Array.from({ length: windows }, (_, w) => {
    const rng = mulberry32(mixSeed(seed, w));
    return Array.from({ length: window }, (_, i) => noisyStep(rng, truthAt(i)));
  });
}

/** The metrics line as a producer from before issue 25 gave it: no episode counts, no turns on successes. */
export function withoutNoiseFields(metrics: Readonly<Record<string, number>>): Record<string, number> {
  const { successTurns: _s, episodes: _e, aborted: _a, groups: _g, ...rest } = metrics;
  return rest;
}
