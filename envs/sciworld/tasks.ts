/**
 * Task ids and splits. A task id is `<task name>/<variation>` with ScienceWorld's task names
 * (`test-conductivity/12`); the variation fixes the world. The test split has the family mix of
 * AgentGym's 200 test items (Measure 53, Test-Conductivity 83, Find 44, Chem-Mix 5, Lifespan 15),
 * cycling through each family's task names. Train uses variations from 1000 up and skips any
 * whose defining parameters (`SciTask.signature`) equal a test task's, so the splits share
 * neither ids nor worlds (AgentGym's SciWorld split had train/test overlap).
 */
import { EnvError, type Split } from '../contract.ts';
import { chemMixFamily } from './families/chem-mix.ts';
import { conductivityFamily } from './families/conductivity.ts';
import { findFamily } from './families/find.ts';
import { lifespanFamily } from './families/lifespan.ts';
import { measureFamily } from './families/measure.ts';
import type { Family, FamilyDef, SciTask } from './task.ts';

export const FAMILIES: readonly FamilyDef[] = [measureFamily, conductivityFamily, findFamily, chemMixFamily, lifespanFamily];

export const TEST_COUNTS: Readonly<Record<Family, number>> = { measure: 53, conductivity: 83, find: 44, 'chem-mix': 5, lifespan: 15 };
export const TRAIN_COUNTS: Readonly<Record<Family, number>> = { measure: 250, conductivity: 320, find: 200, 'chem-mix': 60, lifespan: 80 };
export const TRAIN_FIRST_VARIATION = 1000;
const MAX_VARIATION = 1_000_000;

const byName = new Map<string, FamilyDef>(FAMILIES.flatMap((f) => f.taskNames.map((n) => [n, f] as const)));

export function parseTaskId(taskId: string): { family: FamilyDef; taskName: string; variation: number } {
  const match = typeof taskId === 'string' ? /^([a-z-]+)\/(\d{1,7})$/.exec(taskId) : null;
  const family = match ? byName.get(match[1] as string) : undefined;
  const variation = match ? Number(match[2]) : NaN;
  if (!family || !(variation < MAX_VARIATION)) {
    throw new EnvError('TASK_UNKNOWN', `unknown sciworld task "${String(taskId)}"; expected <task name>/<variation> with task name one of ${[...byName.keys()].join(', ')}`);
  }
  return { family, taskName: match![1] as string, variation };
}

export function buildTask(taskId: string): SciTask {
  const { family, taskName, variation } = parseTaskId(taskId);
  return family.build(taskName, variation);
}

export function familyOf(taskId: string): Family {
  return parseTaskId(taskId).family.family;
}

/**
 * `count` ids of `family` from `first` up, cycling through its task names and skipping any
 * variation whose world (signature) is already in `taken`.
 */
function pickIds(family: FamilyDef, count: number, first: number, taken: Set<string>): string[] {
  const names = family.taskNames;
  const next = new Map(names.map((n) => [n, first]));
  const out: string[] = [];
  for (let made = 0; made < count; ) {
    const name = names[made % names.length] as string;
    const v = next.get(name) as number;
    next.set(name, v + 1);
    const id = `${name}/${v}`;
    const signature = buildTask(id).signature;
    if (taken.has(signature)) continue;
    taken.add(signature);
    out.push(id);
    made++;
  }
  return out;
}

/** Tasks in a split, without building them. */
export function splitSize(split: Split): number {
  return Object.values(split === 'test' ? TEST_COUNTS : TRAIN_COUNTS).reduce((a, b) => a + b, 0);
}

const cache = new Map<Split, readonly string[]>();
/** Per family, the worlds the test split took; train skips them, so test is always built first. */
let testTaken: Map<FamilyDef, Set<string>> | undefined;

export function sciworldTasks(split: Split): readonly string[] {
  if (split === 'test-templates') return []; // SciWorld has no held-out templates
  const cached = cache.get(split);
  if (cached) return cached;
  if (!testTaken) {
    // Only the asked split is built (listing test categories should not build 910 train worlds).
    testTaken = new Map(FAMILIES.map((family) => [family, new Set<string>()]));
    const test = FAMILIES.flatMap((family) => pickIds(family, TEST_COUNTS[family.family], 0, testTaken!.get(family)!));
    cache.set('test', Object.freeze(test));
  }
  if (split === 'train') {
    const train = FAMILIES.flatMap((family) => pickIds(family, TRAIN_COUNTS[family.family], TRAIN_FIRST_VARIATION, new Set(testTaken!.get(family))));
    cache.set('train', Object.freeze(train));
  }
  return cache.get(split) as readonly string[];
}
