/**
 * Task ids and splits. A task id is the goal item's Minecraft id (`dark_oak_sign`); any of
 * AgentGym's 544 goals (items with a recipe) can be played. The splits follow AgentGym's sizes:
 * test 100 goals by crafting depth 1×31, 2×41, 3×25, 4×3, and train 374 goals drawn from the
 * rest, so they never share a goal. Both are fixed draws from seeded generators over the goals
 * sorted by id (so the file order does not move them).
 */
import { EnvError, type Split } from '../contract.ts';
import { Rng } from '../rng.ts';
import { craftingTree } from './tree.ts';

/** Test goals per minimum crafting depth (AgentGym's test set). */
export const TEST_DEPTH_MIX: Readonly<Record<number, number>> = { 1: 31, 2: 41, 3: 25, 4: 3 };
export const TRAIN_SIZE = 374;
export const TEST_SIZE = Object.values(TEST_DEPTH_MIX).reduce((a, b) => a + b, 0);

/** Resolves a task id to its goal item; anything but a craftable item is `TASK_UNKNOWN`. */
export function parseTaskId(taskId: string): string {
  const tree = craftingTree();
  if (typeof taskId !== 'string' || tree.recipesOf(taskId).length === 0) {
    const shown = typeof taskId === 'string' ? JSON.stringify(taskId.slice(0, 80)) : String(taskId);
    throw new EnvError('TASK_UNKNOWN', `unknown textcraft task ${shown}; a task id is the Minecraft id of a craftable item, e.g. "crafting_table" (see tasks('test'))`);
  }
  return taskId;
}

let splits: Readonly<Record<'train' | 'test', readonly string[]>> | undefined;

export function textcraftTasks(split: Split): readonly string[] {
  if (split === 'test-templates') return []; // TextCraft has no held-out templates
  splits ??= drawSplits();
  return splits[split];
}

function drawSplits(): Readonly<Record<'train' | 'test', readonly string[]>> {
  const tree = craftingTree();
  const goals = tree.goals().map(([item]) => item).sort();
  const test: string[] = [];
  for (const [depth, count] of Object.entries(TEST_DEPTH_MIX)) {
    const pool = goals.filter((g) => tree.minDepth(g) === Number(depth));
    if (pool.length < count) throw new EnvError('ENV_INTERNAL', `only ${pool.length} textcraft goals of depth ${depth}, the test split needs ${count}`);
    test.push(...new Rng(0x7e57 + Number(depth)).shuffle(pool).slice(0, count).sort());
  }
  const inTest = new Set(test);
  const rest = goals.filter((g) => !inTest.has(g));
  if (rest.length < TRAIN_SIZE) throw new EnvError('ENV_INTERNAL', `only ${rest.length} textcraft goals outside the test split, train needs ${TRAIN_SIZE}`);
  const train = new Rng(0x7a1e).shuffle(rest).slice(0, TRAIN_SIZE).sort();
  return { train: Object.freeze(train), test: Object.freeze(test) };
}
