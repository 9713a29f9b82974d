/**
 * The "Crafting commands:" list of a goal, as AgentGym's `create_recipe_set` and `reset`
 * build it: every recipe of the goal's crafting tree (all alternatives, and for a tag the
 * recipes of all its members), plus up to 10 distractors drawn from recipes that share an
 * ingredient with the tree, shuffled.
 */
import type { Rng } from '../rng.ts';
import type { CraftingTree, Recipe } from './tree.ts';

/** AgentGym's `max_distractor`, and its per-ingredient sample size. */
export const MAX_DISTRACTORS = 10;

export interface CommandSet {
  /** The shuffled list shown to the agent. */
  readonly recipes: readonly Recipe[];
  /** How many of them are distractors (outside the goal's tree). */
  readonly distractors: number;
}

/** Every recipe reachable from `goal`, depth first, each once. */
export function treeRecipes(tree: CraftingTree, goal: string): Recipe[] {
  const found = new Set<Recipe>();
  const visit = (name: string): void => {
    for (const recipe of tree.recipesFor(name)) {
      if (found.has(recipe)) continue;
      found.add(recipe);
      for (const input of recipe.inputs) visit(input.name);
    }
  };
  visit(goal);
  return [...found];
}

export function commandSet(tree: CraftingTree, goal: string, rng: Rng): CommandSet {
  // The original shows a set of recipe texts: two files with the same recipe (sugar) show once.
  const byText = new Map<string, Recipe>();
  for (const r of treeRecipes(tree, goal)) if (!byText.has(r.text)) byText.set(r.text, r);
  const recipes = [...byText.values()];
  const shown = new Set(byText.keys());
  const candidates = new Map<string, Recipe>();
  for (const recipe of recipes) {
    for (const input of recipe.inputs) {
      const uses = tree.usesOf(input.name);
      for (const use of sample(rng, uses, Math.min(uses.length, MAX_DISTRACTORS))) {
        if (!shown.has(use.text) && !candidates.has(use.text)) candidates.set(use.text, use);
      }
    }
  }
  const pool = [...candidates.values()];
  const distractors = sample(rng, pool, Math.min(pool.length, MAX_DISTRACTORS));
  return { recipes: rng.shuffle([...recipes, ...distractors]), distractors: distractors.length };
}

/** `k` distinct elements in random order, like Python's `random.sample`. */
function sample<T>(rng: Rng, items: readonly T[], k: number): T[] {
  const copy = [...items];
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(copy.length - i);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, k);
}
