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
export function draw<T>(template: string, pools: Readonly<Record<Split, readonly T[]>>, counts: Readonly<Record<Split, number>>): Record<Split, T[]> {
  const out = {} as Record<Split, T[]>;
  for (const split of ['train', 'test'] as const) {
    const pool = pools[split];
    if (pool.length < counts[split]) throw new Error(`web task template ${template}: only ${pool.length} ${split} entities for ${counts[split]} tasks`);
    out[split] = Rng.fromString(`web/tasks/${template}/${split}`).shuffle([...pool]).slice(0, counts[split]);
  }
  return out;
}

/** Splits `items` into the two pools by `isTest`. */
export function pools<T>(items: readonly T[], isTest: (item: T) => boolean): Record<Split, T[]> {
  return { train: items.filter((i) => !isTest(i)), test: items.filter(isTest) };
}
