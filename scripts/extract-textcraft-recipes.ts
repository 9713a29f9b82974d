/**
 * Extracts the Minecraft 1.16 crafting recipes that the TextCraft env needs into
 * `envs/textcraft/data/recipes-1.16.json` (committed; the env reads only that file).
 *
 *   npm install --no-save minecraft-data@3.119.0 && npx tsx scripts/extract-textcraft-recipes.ts
 *
 * Source: PrismarineJS minecraft-data (https://github.com/PrismarineJS/minecraft-data, MIT
 * licence), `pc/1.16.1/recipes.json` and `items.json` (what `minecraft-data('1.16')` loads).
 * minecraft-data is not a dependency of actorgym (about 500 MB): install it without saving.
 *
 * What the script decides, and why (AgentGym reads Mojang's recipe files, where an ingredient
 * can be a tag; minecraft-data has expanded every tag into one recipe per variant):
 * 1. Tags are rebuilt. Recipes for one item with the same shape and result count that differ
 *    only in slots whose variants form a vanilla 1.16 item tag (`KNOWN_TAGS`) become one recipe
 *    with that tag. Variants that form no known tag (red dye from a poppy, a red tulip or a
 *    beetroot) stay separate recipes, as they are separate recipe files in Minecraft.
 * 2. A tag whose members are all craftable (planks, wool, wooden slabs) stays generic: any
 *    member satisfies it, as AgentGym's tag handling does. A tag with base (uncraftable)
 *    members becomes its first base member (`oak_logs` → oak log, `coals` → coal), because
 *    AgentGym turns such tags into one fetchable item and the agent must be able to `get`
 *    what the recipe names.
 * 3. As AgentGym: recipes whose only ingredient ends in `_block` (unpacking a storage block)
 *    are dropped, and so is any recipe that would close a cycle (AgentGym's transitive-
 *    dependency check, made exact). Recipes are admitted larger result count first, so
 *    `9 iron nugget from 1 iron ingot` wins over `1 iron ingot from 9 iron nugget` and
 *    ingots stay fetchable.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const MC_VERSION = '1.16';
const OUT = new URL('../envs/textcraft/data/recipes-1.16.json', import.meta.url);

type RawItem = number | null | { id: number } | [number, number];
interface RawRecipe {
  readonly result: { id: number; count?: number } | number;
  readonly inShape?: readonly (readonly RawItem[])[];
  readonly ingredients?: readonly RawItem[];
}
interface McData {
  readonly version: { readonly minecraftVersion: string };
  readonly items: Readonly<Record<number, { readonly name: string }>>;
  readonly recipes: Readonly<Record<string, readonly RawRecipe[]>>;
}

/** One recipe as ingredient slots in order of first appearance; a slot holds one item id. */
interface Variant {
  readonly output: string;
  readonly count: number;
  /** Shape of the grid (or `shapeless`) with slots lettered, and the result count. */
  readonly structure: string;
  readonly slots: readonly { readonly item: string; readonly count: number }[];
}

/** A recipe of the output file: an ingredient is an item name or `#tag`. */
type Ingredient = readonly [name: string, count: number];
interface Recipe {
  readonly output: string;
  readonly count: number;
  readonly inputs: readonly Ingredient[];
}

const WOODS = ['oak', 'spruce', 'birch', 'jungle', 'acacia', 'dark_oak'];
const STEMS = ['crimson', 'warped'];
const COLORS = ['white', 'orange', 'magenta', 'light_blue', 'yellow', 'lime', 'pink', 'gray', 'light_gray', 'cyan', 'purple', 'blue', 'brown', 'green', 'red', 'black'];
const woodLogs = (w: string) => [`${w}_log`, `${w}_wood`, `stripped_${w}_log`, `stripped_${w}_wood`];
const stemLogs = (s: string) => [`${s}_stem`, `${s}_hyphae`, `stripped_${s}_stem`, `stripped_${s}_hyphae`];

/** The vanilla 1.16 item tags that crafting recipes use as ingredients (data/minecraft/tags/items). */
const KNOWN_TAGS: Readonly<Record<string, readonly string[]>> = {
  planks: [...WOODS, ...STEMS].map((w) => `${w}_planks`),
  wooden_slabs: [...WOODS, ...STEMS].map((w) => `${w}_slab`),
  wool: COLORS.map((c) => `${c}_wool`),
  logs: [...WOODS.flatMap(woodLogs), ...STEMS.flatMap(stemLogs)],
  ...Object.fromEntries(WOODS.map((w) => [`${w}_logs`, woodLogs(w)])),
  ...Object.fromEntries(STEMS.map((s) => [`${s}_stems`, stemLogs(s)])),
  coals: ['coal', 'charcoal'],
  stone_tool_materials: ['cobblestone', 'blackstone'],
  soul_fire_base_blocks: ['soul_sand', 'soul_soil'],
};
const setKey = (names: Iterable<string>) => [...new Set(names)].sort().join(' ');
const TAG_BY_MEMBERS = new Map(Object.entries(KNOWN_TAGS).map(([tag, members]) => [setKey(members), tag]));

function main(): void {
  const require = createRequire(import.meta.url);
  const mcData = (require('minecraft-data') as (version: string) => McData | undefined)(MC_VERSION);
  if (!mcData) throw new Error(`minecraft-data has no data for ${MC_VERSION}`);
  const paths = require('minecraft-data/minecraft-data/data/dataPaths.json') as { pc: Record<string, { recipes: string }> };
  const recipesPath = paths.pc[MC_VERSION]?.recipes ?? `pc/${MC_VERSION}`;
  const { version: packageVersion } = require('minecraft-data/package.json') as { version: string };
  const nameOf = (id: number): string => {
    const item = mcData.items[id];
    if (!item) throw new Error(`unknown item id ${id}`);
    return item.name;
  };
  const idOf = new Map(Object.entries(mcData.items).map(([id, item]) => [item.name, Number(id)]));

  const variants = Object.values(mcData.recipes).flatMap((list) => list.map((r) => toVariant(r, nameOf)));
  const items = new Set(variants.flatMap((v) => [v.output, ...v.slots.map((s) => s.item)]));
  const unpacksBlock = (inputs: readonly { item: string }[]) => inputs.length === 1 && (inputs[0] as { item: string }).item.endsWith('_block');
  const craftable = new Set(variants.filter((v) => !unpacksBlock(v.slots)).map((v) => v.output));

  const merged: Recipe[] = [];
  const report: string[] = [];
  for (const group of groupBy(variants, (v) => `${v.output}|${v.structure}`).values()) {
    merged.push(...mergeGroup(group, craftable, idOf, report));
  }
  const kept = admitAcyclic(dedupe(merged.filter((r) => !unpacksBlock(r.inputs.map(([item]) => ({ item }))))), report);
  kept.sort((a, b) => a.output.localeCompare(b.output) || recipeKey(a).localeCompare(recipeKey(b)));

  const tags: Record<string, string[]> = {};
  for (const r of kept) for (const [name] of r.inputs) if (name.startsWith('#')) tags[name.slice(1)] = [...(KNOWN_TAGS[name.slice(1)] ?? [])].filter((m) => items.has(m)).sort();

  const lines = [
    '{',
    `  "source": ${JSON.stringify(`PrismarineJS minecraft-data ${packageVersion} (MIT): ${recipesPath}/recipes.json and items.json, extracted by scripts/extract-textcraft-recipes.ts`)},`,
    `  "minecraftVersion": ${JSON.stringify(mcData.version.minecraftVersion)},`,
    `  "tags": ${JSON.stringify(tags)},`,
    `  "items": ${JSON.stringify([...items].sort())},`,
    '  "recipes": [',
    kept.map((r) => `    ${JSON.stringify([r.output, r.count, r.inputs])}`).join(',\n'),
    '  ]',
    '}',
    '',
  ];
  writeFileSync(OUT, lines.join('\n'));
  for (const line of report) console.log(line);
  console.log(`wrote ${kept.length} recipes for ${new Set(kept.map((r) => r.output)).size} items, ${Object.keys(tags).length} generic tags, ${items.size} items to ${OUT.pathname}`);
}

function toVariant(raw: RawRecipe, nameOf: (id: number) => string): Variant {
  const idOfItem = (x: RawItem): number | null => (x === null ? null : typeof x === 'number' ? x : Array.isArray(x) ? x[0] : x.id);
  const result = typeof raw.result === 'number' ? { id: raw.result, count: 1 } : raw.result;
  const cells = raw.inShape ? raw.inShape.flat() : (raw.ingredients ?? []);
  const letters = new Map<number, number>();
  const counts: number[] = [];
  const pattern = cells.map((cell) => {
    const id = idOfItem(cell);
    if (id === null) return '.';
    if (!letters.has(id)) {
      letters.set(id, letters.size);
      counts.push(0);
    }
    const letter = letters.get(id) as number;
    counts[letter] = (counts[letter] as number) + 1;
    return String.fromCharCode(97 + letter);
  });
  const grid = raw.inShape ? `${raw.inShape.length}x${raw.inShape[0]?.length ?? 0}` : 'shapeless';
  const count = result.count ?? 1;
  return {
    output: nameOf(result.id),
    count,
    structure: `${grid}:${pattern.join('')}:${count}`,
    slots: [...letters.keys()].map((id, i) => ({ item: nameOf(id), count: counts[i] as number })),
  };
}

/**
 * Variants of one output and structure: one tagged recipe when they are exactly the product
 * of known tags over their varying slots, else each variant as its own recipe.
 */
function mergeGroup(group: readonly Variant[], craftable: ReadonlySet<string>, idOf: ReadonlyMap<string, number>, report: string[]): Recipe[] {
  const first = group[0] as Variant;
  const asIs = group.map((v) => ({ output: v.output, count: v.count, inputs: v.slots.map((s): Ingredient => [s.item, s.count]) }));
  if (group.length === 1) return asIs;
  const slotSets = first.slots.map((_, i) => new Set(group.map((v) => (v.slots[i] as { item: string }).item)));
  const varying = slotSets.map((set, i) => ({ set, i })).filter(({ set }) => set.size > 1);
  const tags = varying.map(({ set }) => TAG_BY_MEMBERS.get(setKey(set)));
  const product = varying.reduce((n, { set }) => n * set.size, 1);
  const combos = new Set(group.map((v) => v.slots.map((s) => s.item).join(' ')));
  if (tags.some((t) => t === undefined) || product !== group.length || combos.size !== group.length) {
    report.push(`separate recipes: ${first.output} varies in ${varying.map(({ set }) => `{${[...set].join(', ')}}`).join(' × ')}`);
    return asIs;
  }
  const inputs = first.slots.map((slot, i): Ingredient => {
    const at = varying.findIndex((v) => v.i === i);
    if (at < 0) return [slot.item, slot.count];
    const members = [...(slotSets[i] as Set<string>)];
    if (members.every((m) => craftable.has(m))) return [`#${tags[at] as string}`, slot.count];
    const base = members.filter((m) => !craftable.has(m)).sort((a, b) => (idOf.get(a) ?? 0) - (idOf.get(b) ?? 0));
    return [base[0] as string, slot.count];
  });
  return [{ output: first.output, count: first.count, inputs }];
}

/** Admits recipes one by one (larger result count first) unless the output is already among an input's ingredients. */
function admitAcyclic(recipes: readonly Recipe[], report: string[]): Recipe[] {
  const order = [...recipes].sort((a, b) => b.count - a.count || a.output.localeCompare(b.output) || recipeKey(a).localeCompare(recipeKey(b)));
  const uses = new Map<string, Set<string>>();
  const kept: Recipe[] = [];
  const expand = (name: string): readonly string[] => (name.startsWith('#') ? (KNOWN_TAGS[name.slice(1)] ?? []) : [name]);
  const reaches = (from: string, target: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const item = stack.pop() as string;
      if (item === target) return true;
      if (seen.has(item)) continue;
      seen.add(item);
      stack.push(...(uses.get(item) ?? []));
    }
    return false;
  };
  for (const r of order) {
    const inputs = r.inputs.flatMap(([name]) => expand(name));
    if (inputs.some((i) => reaches(i, r.output))) {
      report.push(`cycle dropped: ${recipeKey(r)}`);
      continue;
    }
    const set = uses.get(r.output) ?? new Set<string>();
    for (const i of inputs) set.add(i);
    uses.set(r.output, set);
    kept.push(r);
  }
  return kept;
}

function dedupe(recipes: readonly Recipe[]): Recipe[] {
  const seen = new Map<string, Recipe>();
  for (const r of recipes) if (!seen.has(recipeKey(r))) seen.set(recipeKey(r), r);
  return [...seen.values()];
}

const recipeKey = (r: Recipe) => `${r.count} ${r.output} <- ${r.inputs.map(([n, c]) => `${c} ${n}`).join(', ')}`;

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

main();
