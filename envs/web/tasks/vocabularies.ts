/**
 * The names of a kind that the seeded sites hold (every product name, brand, username, post
 * title …): what a name answer is searched for, so an answer that names two of a kind (an
 * enumeration of a category's products, a forum's titles) is told apart from one that names one.
 */
import { forumData, shopData } from './seeded.ts';

export const VOCABULARIES = ['shop/products', 'shop/brands', 'shop/categories', 'forum/usernames', 'forum/titles', 'forum/forums'] as const;
export type Vocabulary = (typeof VOCABULARIES)[number];

const cache = new Map<Vocabulary, readonly string[]>();

const distinct = (values: readonly unknown[]) => Object.freeze([...new Set(values.map(String))]);

function build(name: Vocabulary): readonly string[] {
  switch (name) {
    case 'shop/products': return distinct(shopData().products.map((p) => p.name));
    case 'shop/brands': return distinct(shopData().products.map((p) => p.brand));
    case 'shop/categories': return distinct(shopData().categories.map((c) => c.name));
    case 'forum/usernames': return distinct(forumData().users.map((u) => u.username));
    case 'forum/titles': return distinct(forumData().posts.map((p) => p.title));
    case 'forum/forums': return distinct(forumData().forums.map((f) => f.name));
  }
}

/** The names of a vocabulary, built once from the seeded content. */
export function vocabulary(name: Vocabulary): readonly string[] {
  let names = cache.get(name);
  if (!names) {
    if (!VOCABULARIES.includes(name)) throw new Error(`unknown name vocabulary "${String(name)}"; expected one of ${VOCABULARIES.join(', ')}`);
    names = build(name);
    cache.set(name, names);
  }
  return names;
}
