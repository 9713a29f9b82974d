/**
 * Which train tasks a learner step rolls out: `n` distinct tasks drawn uniformly by a generator
 * seeded from (run seed, step) alone, so a resumed run draws exactly what the uninterrupted run
 * would have drawn, without carrying sampler state in the checkpoint.
 */
import { deriveSeed } from '../machines/seed.ts';
import { mulberry32 } from '../policy/rng.ts';

/** Salt that keeps this stream apart from the other streams derived from (seed, step). */
const TASKS_STREAM = 0x7a5c;

export function tasksForStep(tasks: readonly string[], n: number, seed: number, step: number): string[] {
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`tasks per step must be a positive integer, got ${n}`);
  if (tasks.length === 0) throw new Error('the env lists no train tasks to learn from');
  const rng = mulberry32(deriveSeed(seed, step, TASKS_STREAM));
  const order = tasks.map((_, i) => i);
  const take = Math.min(n, order.length);
  // Partial Fisher–Yates: the first `take` entries are a uniform sample without replacement.
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(rng.next() * (order.length - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // More tasks asked than exist: cycle, so every step still has n groups.
  return Array.from({ length: n }, (_, k) => tasks[order[k % take]!]!);
}

/** Each task repeated G times in a row: slot s belongs to group ⌊s / G⌋. */
export function slotsFor(tasks: readonly string[], groupSize: number): string[] {
  return tasks.flatMap((task) => Array.from({ length: groupSize }, () => task));
}
