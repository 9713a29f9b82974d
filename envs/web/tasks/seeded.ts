/**
 * The seeded content the task templates are written over (the same rows the sites' snapshots
 * hold, generated without SQLite), the held-out entities of the test split, and the seeded
 * draw of a template's entities into train and test.
 */
import type { Split } from '../../contract.ts';
import { Rng } from '../../rng.ts';
import { generateForumData, type ForumData } from '../sites/forum/data.ts';
import { generateShopData, type ShopData } from '../sites/shop/data.ts';

let shop: ShopData | undefined;
let forum: ForumData | undefined;

export function shopData(): ShopData {
  shop ??= generateShopData();
  return shop;
}

export function forumData(): ForumData {
  forum ??= generateForumData();
  return forum;
}

/**
 * The splits a template's entities are drawn into: train, and test with entities held out. The
 * third split, `test-templates`, holds whole templates out instead (web-tasks.ts).
 */
export type EntitySplit = Exclude<Split, 'test-templates'>;

/** Categories and sub-forums whose tasks are test-only (every task naming them is in test). */
export const TEST_CATEGORIES: readonly string[] = ['books', 'pet-supplies'];
export const TEST_FORUMS: readonly string[] = ['science', 'music'];

/** Products, users and search terms held out for test: a fixed quarter, by a hash of their key. */
export function heldOut(key: string): boolean {
  return Rng.fromString(`web/holdout/${key}`).int(4) === 0;
}

/**
 * Takes `counts[split]` entities of each split's pool, in a shuffle seeded by the template name,
 * so a template's tasks are fixed and adding a template does not change the others.
 */
export function draw<T>(template: string, pools: Readonly<Record<EntitySplit, readonly T[]>>, counts: Readonly<Record<EntitySplit, number>>): Record<EntitySplit, T[]> {
  const out = {} as Record<EntitySplit, T[]>;
  for (const split of ['train', 'test'] as const) {
    const pool = pools[split];
    if (pool.length < counts[split]) throw new Error(`web task template ${template}: only ${pool.length} ${split} entities for ${counts[split]} tasks`);
    out[split] = Rng.fromString(`web/tasks/${template}/${split}`).shuffle([...pool]).slice(0, counts[split]);
  }
  return out;
}

/** Splits `items` into the two pools by `isTest`. */
export function pools<T>(items: readonly T[], isTest: (item: T) => boolean): Record<EntitySplit, T[]> {
  return { train: items.filter((i) => !isTest(i)), test: items.filter(isTest) };
}
