/**
 * Writes `envs/textcraft/data/mojang-1.16-side.json`: the facts of Minecraft 1.16's crafting
 * recipes that minecraft-data lacks and AgentGym's agentenv-textcraft depends on, read from
 * Mojang's recipe files (the game's data pack, `data/minecraft/recipes/*.json`; AgentGym ships a
 * copy in agentenv-textcraft/agentenv_textcraft/recipes):
 *
 *   git --git-dir=/work/.mirror/WooooDyy+AgentGym/repo archive HEAD agentenv-textcraft/agentenv_textcraft/recipes | tar x -C /tmp
 *   npx tsx scripts/extract-textcraft-mojang.ts /tmp/agentenv-textcraft/agentenv_textcraft/recipes
 *
 * Per crafting recipe (shaped or shapeless; the other types AgentGym skips), in file-name order
 * sorted by code point (AgentGym reads `os.listdir` order, which the filesystem decides; we fix
 * it): the file name, the `group`, the output, and the ingredient slots in AgentGym's order —
 * a shaped recipe's `key` entries in file order, a shapeless recipe's ingredients by first
 * occurrence — each the first alternative of a list, `#name` for a tag. No counts: those come
 * from minecraft-data (scripts/extract-textcraft-recipes.ts joins the two).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const OUT = new URL('../envs/textcraft/data/mojang-1.16-side.json', import.meta.url);

type Choice = { item?: string; tag?: string };
interface RecipeJson {
  readonly type: string;
  readonly group?: string;
  readonly key?: Record<string, Choice | Choice[]>;
  readonly ingredients?: (Choice | Choice[])[];
  readonly result: { item: string; count?: number } | string;
}

const bare = (id: string): string => {
  if (!id.startsWith('minecraft:')) throw new Error(`unexpected id ${id}`);
  return id.slice('minecraft:'.length);
};

function slot(choice: Choice | Choice[]): string {
  const first = Array.isArray(choice) ? choice[0] : choice;
  if (first?.item) return bare(first.item);
  if (first?.tag) return `#${bare(first.tag)}`;
  throw new Error(`unknown ingredient ${JSON.stringify(choice)}`);
}

function main(dir: string | undefined): void {
  if (!dir) throw new Error('usage: npx tsx scripts/extract-textcraft-mojang.ts <path to the 1.16 recipes folder>');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rows: string[] = [];
  for (const file of files) {
    const recipe = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RecipeJson;
    let slots: string[];
    if (recipe.type === 'minecraft:crafting_shaped') slots = Object.values(recipe.key ?? {}).map(slot);
    else if (recipe.type === 'minecraft:crafting_shapeless') slots = [...new Set((recipe.ingredients ?? []).map(slot))];
    else continue;
    const output = bare(typeof recipe.result === 'string' ? recipe.result : recipe.result.item);
    rows.push(`    ${JSON.stringify([file.replace(/\.json$/, ''), recipe.group ?? null, output, slots])}`);
  }
  const text = [
    '{',
    '  "source": "Mojang Minecraft 1.16 data pack, data/minecraft/recipes/*.json (the copy in WooooDyy/AgentGym agentenv-textcraft/agentenv_textcraft/recipes); facts extracted by scripts/extract-textcraft-mojang.ts",',
    '  "format": "[file name without .json, group or null, output, ingredient slots in AgentGym order (#name = tag)], files sorted by code point",',
    '  "recipes": [',
    rows.join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
  writeFileSync(OUT, text);
  console.log(`wrote ${rows.length} crafting recipes of ${files.length} files to ${OUT.pathname}`);
}

main(process.argv[2]);
