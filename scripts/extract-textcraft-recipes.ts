/**
 * Writes `envs/textcraft/data/recipes-1.16.json` (committed; the env reads only that file): the
 * Minecraft 1.16 crafting recipes as AgentGym's agentenv-textcraft reads them, one row per
 * recipe file in code-point order of file names:
 * `[file, group or null, output, result count, [[item or #tag, count], ...]]`.
 *
 *   npm install --no-save minecraft-data@3.119.0 && npx tsx scripts/extract-textcraft-recipes.ts
 *
 * Two sources, joined here:
 * - PrismarineJS minecraft-data (https://github.com/PrismarineJS/minecraft-data, MIT licence),
 *   `pc/1.16.1/recipes.json` and `items.json` (what `minecraft-data('1.16')` loads): the recipes
 *   themselves, i.e. which items in which counts make how many of the output. It has expanded
 *   every tag into one recipe per variant and has no groups or file names.
 * - `envs/textcraft/data/mojang-1.16-side.json` (scripts/extract-textcraft-mojang.ts, from Mojang's
 *   1.16 recipe files): per recipe its file name, `group`, and ingredient slots in AgentGym's
 *   order, tags named. For each side row the script finds the minecraft-data variant of the same
 *   output whose items fill the slots (an item slot by that item, a tag slot by a member of the
 *   vanilla tag) and takes the counts from it. A row no variant fills is an error.
 * The env applies AgentGym's rules (block unpacking dropped, cycle check in file order, tags
 * without craftable members as fetchable items) when it loads the file (envs/textcraft/tree.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const MC_VERSION = '1.16';
const SIDE = new URL('../envs/textcraft/data/mojang-1.16-side.json', import.meta.url);
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
type SideRow = readonly [file: string, group: string | null, output: string, slots: readonly string[]];

/** A minecraft-data recipe: its result count and how many of each item it takes. */
interface Variant {
  readonly count: number;
  readonly items: ReadonlyMap<string, number>;
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
  stone_crafting_materials: ['cobblestone', 'blackstone'],
  soul_fire_base_blocks: ['soul_sand', 'soul_soil'],
};

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
  const variants = new Map<string, Variant[]>();
  for (const [resultId, list] of Object.entries(mcData.recipes)) {
    variants.set(nameOf(Number(resultId)), list.map((r) => toVariant(r, nameOf)));
  }
  const side = (JSON.parse(readFileSync(SIDE, 'utf8')) as { recipes: SideRow[] }).recipes;
  const rows: string[] = [];
  const missing: string[] = [];
  for (const [file, group, output, slots] of side) {
    const joined = (variants.get(output) ?? []).map((v) => fill(slots, v)).find((x) => x !== undefined);
    if (!joined) {
      missing.push(file);
      continue;
    }
    rows.push(`    ${JSON.stringify([file, group, output, joined.count, joined.inputs])}`);
  }
  if (missing.length > 0) throw new Error(`no minecraft-data recipe fills these side rows: ${missing.join(', ')}`);
  const lines = [
    '{',
    `  "source": ${JSON.stringify(`PrismarineJS minecraft-data ${packageVersion} (MIT): ${recipesPath}/recipes.json and items.json, joined with mojang-1.16-side.json (file names, groups, slot order, tags) by scripts/extract-textcraft-recipes.ts`)},`,
    `  "minecraftVersion": ${JSON.stringify(mcData.version.minecraftVersion)},`,
    '  "recipes": [',
    rows.join(',\n'),
    '  ]',
    '}',
    '',
  ];
  writeFileSync(OUT, lines.join('\n'));
  console.log(`wrote ${rows.length} recipes to ${OUT.pathname}`);
}

function toVariant(raw: RawRecipe, nameOf: (id: number) => string): Variant {
  const idOfItem = (x: RawItem): number | null => (x === null ? null : typeof x === 'number' ? x : Array.isArray(x) ? x[0] : x.id);
  const result = typeof raw.result === 'number' ? { id: raw.result, count: 1 } : raw.result;
  const items = new Map<string, number>();
  for (const cell of raw.inShape ? raw.inShape.flat() : (raw.ingredients ?? [])) {
    const id = idOfItem(cell);
    if (id !== null) items.set(nameOf(id), (items.get(nameOf(id)) ?? 0) + 1);
  }
  return { count: result.count ?? 1, items };
}

/** The slots with their counts when `variant` fills them exactly: items by name first, then tags by members. */
function fill(slots: readonly string[], variant: Variant): { count: number; inputs: [string, number][] } | undefined {
  if (slots.length !== variant.items.size) return undefined;
  const left = new Map(variant.items);
  const counts = slots.map((s) => {
    if (s.startsWith('#') || !left.has(s)) return undefined;
    const n = left.get(s) as number;
    left.delete(s);
    return n;
  });
  const filled = slots.map((s, i) => {
    const known = counts[i];
    if (known !== undefined) return known;
    const members = s.startsWith('#') ? (KNOWN_TAGS[s.slice(1)] ?? []) : [];
    const item = [...left.keys()].find((k) => members.includes(k));
    if (item === undefined) return undefined;
    const n = left.get(item) as number;
    left.delete(item);
    return n;
  });
  if (filled.some((n) => n === undefined)) return undefined;
  return { count: variant.count, inputs: slots.map((s, i) => [s, filled[i] as number]) };
}

main();
