/**
 * Which tasks of a split a run takes (`--episodes N`, `--tasks N`, `--shuffle`), for every env.
 * The first N of a split are often one kind (the web env's test split starts with eight price
 * questions), so fewer tasks than the split are taken round-robin over the task categories
 * (`EnvDefinition.categoryOf`): one of each category in turn, in each category's split order.
 * `shuffle` randomises the order inside each category and the turn of the categories, seeded,
 * so the same seed takes the same tasks. The whole split keeps the split's order unless shuffled.
 */
import type { EnvDefinition, Split } from './contract.ts';
import { orderCategories } from './categories.ts';
import { Rng } from './rng.ts';

/** `first`: the split's first N (the library's default); `stratified`: round-robin over categories. */
export type TaskPick = 'first' | 'stratified';

export interface PickTasksOptions {
  /** Tasks to take; default (or past the split's size) the whole split. */
  readonly count?: number;
  /** Default `stratified`. */
  readonly pick?: TaskPick;
  /** Randomise the order, seeded by `seed` (default false). */
  readonly shuffle?: boolean;
  readonly seed?: number;
}

/**
 * The task ids a run takes from `split`, in the order it runs them: at most `count`, never the
 * same id twice.
 *
 * @example
 * pickTasks(getEnv('web'), 'test', { count: 8 });            // one task of each of 8 categories
 * pickTasks(getEnv('web'), 'test', { shuffle: true, seed: 3 }); // the whole split, in a seeded order
 */
export function pickTasks(definition: Pick<EnvDefinition, 'tasks' | 'categoryOf'>, split: Split, options: PickTasksOptions = {}): string[] {
  const all = definition.tasks(split);
  const count = Math.min(options.count ?? all.length, all.length);
  const rng = options.shuffle ? Rng.fromString(`pick-tasks/${split}/${options.seed ?? 0}`) : undefined;
  if (count === all.length || options.pick === 'first') {
    // Shuffled, `first` takes N of the whole split at random rather than reordering the first N.
    return (rng ? rng.shuffle([...all]) : [...all]).slice(0, count);
  }
  const groups = byCategory(all, definition.categoryOf?.bind(definition));
  if (rng) {
    for (const group of groups) rng.shuffle(group);
    rng.shuffle(groups);
  }
  const taken: string[] = [];
  for (let round = 0; taken.length < count; round++) {
    for (const group of groups) {
      const id = group[round];
      if (id !== undefined && taken.length < count) taken.push(id);
    }
  }
  return taken;
}

/** The split's ids grouped by category, categories in table order (categories.ts), ids in split order; one group without categories. */
function byCategory(ids: readonly string[], categoryOf: ((taskId: string) => string) | undefined): string[][] {
  if (!categoryOf) return [[...ids]];
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const name = categoryOf(id);
    const group = groups.get(name);
    if (group) group.push(id);
    else groups.set(name, [id]);
  }
  return orderCategories(groups.keys()).map((name) => groups.get(name) as string[]);
}
