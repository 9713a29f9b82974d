/**
 * Which demos validate: a seeded share of the distinct tasks, so a held-out task is never also
 * trained on (several samples of one task would otherwise leak across the split).
 */
import { deriveSeed } from '../../machines/seed.ts';
import { shuffled } from '../train-step.ts';

const VALIDATION_STREAM = 0x5a11d;

export function validationTasks(taskIds: readonly string[], share: number, seed: number): Set<string> {
  const tasks = [...new Set(taskIds)].sort();
  if (share <= 0 || tasks.length < 2) return new Set();
  const count = Math.min(tasks.length - 1, Math.max(1, Math.round(share * tasks.length)));
  const order = shuffled(tasks.length, deriveSeed(seed, VALIDATION_STREAM));
  return new Set(order.slice(0, count).map((i) => tasks[i]!));
}
