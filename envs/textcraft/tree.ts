/**
 * The crafting tree, built by AgentGym's `CraftingTree` rules (agentenv-textcraft/
 * agentenv_textcraft/crafting_tree.py, `_load_recipes` and `clean_up_recipes`) over the recipe
 * files in code-point order of their names: recipes by output, an output's `group` as its tag,
 * the cycle check, tags with no craftable member turned into fetchable items, which items `get`
 * may fetch, the minimum crafting depth, and the recipe matcher of a `craft` command.
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
  /** AgentGym's `recipe_str`: `craft 4 oak planks using 1 oak logs`. */
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

interface Loaded {
  readonly output: string;
  readonly count: number;
  /** Mutable as in the original: `clean_up_recipes` turns a tag slot into an item in place. */
  readonly inputs: Ingredient[];
  readonly group: string | null;
}

export class CraftingTree {
  readonly #recipes = new Map<string, Recipe[]>();
  readonly #tagRecipes = new Map<string, Recipe[]>();
  /** AgentGym's `item_id_to_tag`: an output item's group, the last file's winning. */
  readonly #tagOf = new Map<string, string>();
  readonly #members = new Map<string, string[]>();
  readonly #tags = new Set<string>();
  readonly #items = new Set<string>();
  readonly #uses = new Map<string, Recipe[]>();
  readonly #depth = new Map<string, number>();

  constructor(file: RecipeFile) {
    const byOutput = new Map<string, Loaded[]>();
    const byTag = new Map<string, Loaded[]>();
    const dependencies = new Map<string, Set<string>>();
    for (const [, group, output, count, raw] of file.recipes) {
      const inputs = raw.map(([name, n]): Ingredient => (name.startsWith('#') ? { name: name.slice(1), count: n, tag: true } : { name, count: n, tag: false }));
      for (const i of inputs) (i.tag ? this.#tags : this.#items).add(i.name);
      this.#items.add(output);
      // Unpacking a storage block (`9 iron ingot using 1 iron block`) is dropped.
      if (inputs.length === 1 && (inputs[0] as Ingredient).name.endsWith('_block')) continue;
      if (group !== null && group !== output) {
        this.#tags.add(group);
        this.#tagOf.set(output, group);
      }
      const seen = dependencies.get(output) ?? new Set<string>();
      dependencies.set(output, seen);
      // The original's cycle check: skip a recipe when an input already depends on the output.
      if (inputs.some((i) => dependencies.get(i.name)?.has(output))) continue;
      const loaded: Loaded = { output, count, inputs, group };
      push(byOutput, output, loaded);
      for (const i of inputs) {
        seen.add(i.name);
        for (const d of dependencies.get(i.name) ?? []) seen.add(d);
      }
      if (group !== null) push(byTag, group, loaded);
    }
    for (const [item, tag] of this.#tagOf) push(this.#members, tag, item);
    // clean_up_recipes: a tag slot none of whose members has a recipe becomes an item of that name.
    for (const list of byOutput.values()) {
      for (const recipe of list) {
        recipe.inputs.forEach((input, at) => {
          if (!input.tag || this.#membersOf(input.name).some((m) => byOutput.has(m))) return;
          recipe.inputs[at] = { name: input.name, count: input.count, tag: false };
          this.#items.add(input.name);
          this.#tags.delete(input.name);
        });
      }
    }
    const made = new Map<Loaded, Recipe>();
    const recipe = (l: Loaded): Recipe => {
      let r = made.get(l);
      if (!r) {
        const text = `craft ${l.count} ${itemText(l.output)} using ${l.inputs.map((i) => `${i.count} ${itemText(i.name)}`).join(', ')}`;
        r = { output: l.output, count: l.count, inputs: l.inputs, text };
        made.set(l, r);
      }
      return r;
    };
    for (const [output, list] of byOutput) this.#recipes.set(output, list.map(recipe));
    for (const [tag, list] of byTag) this.#tagRecipes.set(tag, list.map(recipe));
    // collect_item_uses: item recipes, then tag recipes (a grouped recipe is listed twice).
    for (const list of [...this.#recipes.values(), ...this.#tagRecipes.values()]) {
      for (const r of list) for (const i of r.inputs) push(this.#uses, i.name, r);
    }
  }

  #membersOf(tag: string): readonly string[] {
    return this.#members.get(tag) ?? [];
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
    return this.#tags.has(name);
  }

  /** AgentGym's `get_items_with_tags`: the items whose recipe group is `tag`. */
  tagMembers(tag: string): readonly string[] {
    return this.#membersOf(tag);
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

  /** Items that have a recipe, in the order their first recipe was loaded: the possible goals. */
  craftableItems(): readonly string[] {
    return [...this.#recipes.keys()];
  }

  /**
   * AgentGym's goal list (`TextCraftEnv.reset`): items of depth ≥ 1 with their depth, stably
   * sorted by depth; `data_idx` indexes it modulo its length.
   */
  goals(): readonly (readonly [item: string, depth: number])[] {
    return this.craftableItems()
      .map((item) => [item, this.minDepth(item)] as const)
      .filter(([, d]) => d >= 1)
      .sort((a, b) => a[1] - b[1]);
  }

  typed(name: string): TypedName {
    return this.isTag(name) ? { tag: name, item: null } : { tag: null, item: name };
  }

  /** AgentGym's `get_min_depth`: 0 for base items, else the easiest recipe's deepest input + 1. */
  minDepth(name: string): number {
    const known = this.#depth.get(name);
    if (known !== undefined) return known;
    const recipes = this.recipesFor(name);
    // The cycle check admits no item cycle; a tag loop would recurse in the original too.
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
