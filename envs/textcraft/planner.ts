/**
 * Plans the actions that craft a goal from an inventory: one `get N item` per base item (the
 * whole amount at once), then each craft in dependency order, repeated as often as the amount
 * needs (AgentGym crafts one batch per action and ingredient counts must match exactly).
 * Where an item has several recipes, or a tag several members, it tries each and keeps the
 * plan with the fewest actions, so what the inventory already holds is used first.
 */
import { itemText } from './names.ts';
import type { CraftingTree, Recipe } from './tree.ts';

class PlanState {
  constructor(
    /** What the inventory will hold: the current one, plus planned gets and craft surplus, minus what is spoken for. */
    readonly available: Map<string, number>,
    readonly gets: Map<string, number>,
    readonly crafts: string[],
  ) {}

  static from(inventory: ReadonlyMap<string, number>): PlanState {
    return new PlanState(new Map(inventory), new Map(), []);
  }

  clone(): PlanState {
    return new PlanState(new Map(this.available), new Map(this.gets), [...this.crafts]);
  }

  get turns(): number {
    return this.gets.size + this.crafts.length;
  }

  adopt(other: PlanState): void {
    for (const key of ['available', 'gets'] as const) {
      this[key].clear();
      for (const [k, v] of other[key]) this[key].set(k, v);
    }
    this.crafts.splice(0, this.crafts.length, ...other.crafts);
  }
}

/** The actions from `inventory` to `goal`, or null when the tree cannot make it. */
export function planCrafting(tree: CraftingTree, inventory: ReadonlyMap<string, number>, goal: string): string[] | null {
  const state = PlanState.from(inventory);
  // The goal must be crafted, even if an earlier episode step somehow left one in the inventory.
  state.available.delete(goal);
  if (!obtain(tree, state, goal, 1)) return null;
  return [...[...state.gets].map(([item, n]) => `get ${n} ${itemText(item)}`), ...state.crafts];
}

function obtain(tree: CraftingTree, state: PlanState, item: string, quantity: number): boolean {
  const have = state.available.get(item) ?? 0;
  const used = Math.min(have, quantity);
  if (used > 0) state.available.set(item, have - used);
  const missing = quantity - used;
  if (missing === 0) return true;
  const recipes = tree.recipesOf(item);
  if (recipes.length === 0) {
    if (!tree.isGettable(item)) return false;
    state.gets.set(item, (state.gets.get(item) ?? 0) + missing);
    return true;
  }
  return adoptBest(state, recipes, (trial, recipe) => craftWith(tree, trial, recipe, missing)) !== undefined;
}

function craftWith(tree: CraftingTree, state: PlanState, recipe: Recipe, quantity: number): boolean {
  const times = Math.ceil(quantity / recipe.count);
  const chosen: string[] = [];
  for (const input of recipe.inputs) {
    const options = input.tag ? tree.tagMembers(input.name) : [input.name];
    const picked = adoptBest(state, options, (trial, name) => obtain(tree, trial, name, input.count * times));
    if (picked === undefined) return false;
    chosen.push(`${input.count} ${itemText(picked)}`);
  }
  const action = `craft ${recipe.count} ${itemText(recipe.output)} using ${chosen.join(', ')}`;
  for (let i = 0; i < times; i++) state.crafts.push(action);
  state.available.set(recipe.output, (state.available.get(recipe.output) ?? 0) + times * recipe.count - quantity);
  return true;
}

/**
 * Tries `attempt` for each option on a copy of `state`, adopts the success with the fewest
 * actions (the first on ties) and returns its option; undefined when none succeeds.
 */
function adoptBest<T>(state: PlanState, options: readonly T[], attempt: (trial: PlanState, option: T) => boolean): T | undefined {
  let best: { trial: PlanState; option: T } | undefined;
  for (const option of options) {
    const trial = state.clone();
    if (attempt(trial, option) && (best === undefined || trial.turns < best.trial.turns)) best = { trial, option };
  }
  if (!best) return undefined;
  state.adopt(best.trial);
  return best.option;
}
