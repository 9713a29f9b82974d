/**
 * The start of each task, generated once: the fresh game (its view and macro actions already
 * computed) and its first observation. A task id fixes its level completely, and GRPO resets the
 * same task G times per step, so generating it again (rejection sampling, reachability checks,
 * about 40 µs) is wasted work. A reset clones the cached game; `Game.clone` shares the caches,
 * which are replaced and never mutated.
 *
 * Bounded, least recently used first out: the 1,530 tasks of both splits fit, at about 7 KB each
 * (11 MB for both splits, measured).
 */
import { Game } from './game.ts';
import { NumpyRng } from '../numpy-random.ts';
import { generateLevel } from './level.ts';
import { parseTaskId } from './tasks.ts';

export interface TaskStart {
  /** Never played: reset clones it. */
  readonly game: Game;
  readonly observation: string;
}

export const START_CACHE_SIZE = 2048;

const starts = new Map<string, TaskStart>();

export function taskStart(taskId: string, firstObservation: (game: Game) => string): TaskStart {
  const cached = starts.get(taskId);
  if (cached) {
    // Re-inserted so the map's order is least recently used first.
    starts.delete(taskId);
    starts.set(taskId, cached);
    return cached;
  }
  const { level, seed, minigrid } = parseTaskId(taskId);
  const game = Game.fromLevel(generateLevel(level, seed, minigrid ? { rng: new NumpyRng(seed), minigridExact: true } : {}));
  const start: TaskStart = { game, observation: firstObservation(game) };
  if (starts.size >= START_CACHE_SIZE) starts.delete(starts.keys().next().value as string);
  starts.set(taskId, start);
  return start;
}

/** For tests and memory measurements. */
export function clearTaskStarts(): void {
  starts.clear();
}

export function cachedTaskStarts(): number {
  return starts.size;
}
