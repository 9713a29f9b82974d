/**
 * The crafting tree, after AgentGym's `CraftingTree`: recipes by output, generic tags
 * (`planks` accepts any planks), which items `get` may fetch, the minimum crafting depth of
 * an item, and the recipe matcher that decides whether a `craft` command is valid.
 */
import { loadRecipeFile, type RecipeFile } from './data.ts';
import { itemText } from './names.ts';

export interface Ingredient {
  /** An item id, or a tag name when `tag` is true. */
  readonly name: string;
  readonly count: number;
  readonly tag: boolean;
}

export interface Recipe {
  readonly output: string;
  readonly count: number;
  readonly inputs: readonly Ingredient[];
  /** AgentGym's `recipe_str`: `craft 4 oak planks using 1 oak log`. */
  readonly text: string;
}

/** What a typed name resolves to (AgentGym's `ItemTag`): a tag when the name is one, else an item id. */
export interface TypedName {
  readonly tag: string | null;
  readonly item: string | null;
}

export interface TypedCount {
  readonly name: TypedName;
  readonly count: number;
}

export class CraftingTree {
  readonly #recipes = new Map<string, Recipe[]>();
  readonly #tagRecipes = new Map<string, Recipe[]>();
  readonly #tagMembers = new Map<string, readonly string[]>();
  readonly #tagOf = new Map<string, string>();
  readonly #items: ReadonlySet<string>;
  readonly #uses = new Map<string, Recipe[]>();
  readonly #depth = new Map<string, number>();

  constructor(file: RecipeFile) {
    this.#items = new Set(file.items);
    for (const [tag, members] of Object.entries(file.tags)) {
      this.#tagMembers.set(tag, members);
      for (const m of members) this.#tagOf.set(m, tag);
    }
    for (const [output, count, raw] of file.recipes) {
      const inputs = raw.map(([name, n]): Ingredient => (name.startsWith('#') ? { name: name.slice(1), count: n, tag: true } : { name, count: n, tag: false }));
      const text = `craft ${count} ${itemText(output)} using ${inputs.map((i) => `${i.count} ${itemText(i.name)}`).join(', ')}`;
      const recipe: Recipe = { output, count, inputs, text };
      push(this.#recipes, output, recipe);
      const tag = this.#tagOf.get(output);
      if (tag !== undefined) push(this.#tagRecipes, tag, recipe);
      for (const i of inputs) push(this.#uses, i.name, recipe);
    }
  }

  /** Recipes that make `item` (an item id). */
  recipesOf(item: string): readonly Recipe[] {
    return this.#recipes.get(item) ?? [];
  }

  /** Recipes for `name`: its own when it is an item, its members' when it is a tag. */
  recipesFor(name: string): readonly Recipe[] {
    return this.#recipes.get(name) ?? this.#tagRecipes.get(name) ?? [];
  }

  /** Recipes that take `name` (an item id or tag name, as written in the recipe) as an input. */
  usesOf(name: string): readonly Recipe[] {
    return this.#uses.get(name) ?? [];
  }

  isTag(name: string): boolean {
    return this.#tagMembers.has(name);
  }

  tagMembers(tag: string): readonly string[] {
    return this.#tagMembers.get(tag) ?? [];
  }

  isCraftable(name: string): boolean {
    return this.#recipes.has(name) || this.#tagRecipes.has(name);
  }

  isValidItem(name: string): boolean {
    return this.#items.has(name);
  }

  /** What `get` fetches: a known item that is neither a tag nor craftable. */
  isGettable(name: string): boolean {
    return this.isValidItem(name) && !this.isTag(name) && !this.isCraftable(name);
  }

  /** Items that have a recipe: the possible goals. */
  craftableItems(): readonly string[] {
    return [...this.#recipes.keys()];
  }

  typed(name: string): TypedName {
    return this.isTag(name) ? { tag: name, item: null } : { tag: null, item: name };
  }

  /** AgentGym's `get_min_depth`: 0 for base items, else the easiest recipe's deepest input + 1. */
  minDepth(name: string): number {
    const known = this.#depth.get(name);
    if (known !== undefined) return known;
    const recipes = this.recipesFor(name);
    // The extraction script removed cycles, so this recursion ends.
    const depth = recipes.length === 0 ? 0 : Math.min(...recipes.map((r) => Math.max(...r.inputs.map((i) => this.minDepth(i.name) + 1))));
    this.#depth.set(name, depth);
    return depth;
  }

  /**
   * AgentGym's `craft`: the recipe for `output` whose ingredients the typed inputs match
   * exactly (same items, a tag matched by any member, same counts, nothing left over).
   */
  match(output: TypedName, inputs: readonly TypedCount[]): Recipe | undefined {
    if (output.item === null) return undefined;
    for (const recipe of this.recipesOf(output.item)) {
      const left = [...inputs];
      const ok = recipe.inputs.every((ingredient) => {
        const at = left.findIndex((typed) => this.#satisfies(ingredient, typed.name));
        if (at < 0 || (left[at] as TypedCount).count !== ingredient.count) return false;
        left.splice(at, 1);
        return true;
      });
      if (ok && left.length === 0) return recipe;
    }
    return undefined;
  }

  #satisfies(ingredient: Ingredient, typed: TypedName): boolean {
    if (!ingredient.tag) return typed.item === ingredient.name;
    return typed.tag === ingredient.name || (typed.item !== null && this.#tagOf.get(typed.item) === ingredient.name);
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

let shared: CraftingTree | undefined;

/** The tree of the committed 1.16 recipes, built once and shared (it is read-only). */
export function craftingTree(): CraftingTree {
  shared ??= new CraftingTree(loadRecipeFile());
  return shared;
}
