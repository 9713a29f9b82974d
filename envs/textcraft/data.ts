/**
 * Loads the committed recipe file (written by scripts/extract-textcraft-recipes.ts from
 * PrismarineJS minecraft-data, MIT, joined with file names, groups, slot order and tags from
 * Mojang's 1.16 recipe files). Read once, on first use, so importing the registry stays
 * cheap; a malformed file is an `ENV_INTERNAL` error naming the problem.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { EnvError } from '../contract.ts';

const ingredient = z.tuple([z.string().min(1), z.number().int().positive()]);

const recipeFile = z.object({
  source: z.string(),
  minecraftVersion: z.string(),
  /**
   * One row per crafting recipe file, files in code-point order of their names:
   * `[file, group or null, output, result count, [[input or #tag, count], ...]]`, the inputs in
   * AgentGym's order (a shaped recipe's `key` order, a shapeless recipe's first occurrences).
   */
  recipes: z.array(z.tuple([z.string().min(1), z.string().min(1).nullable(), z.string().min(1), z.number().int().positive(), z.array(ingredient).min(1)])),
});

export type RecipeFile = z.infer<typeof recipeFile>;

export const RECIPE_FILE = new URL('./data/recipes-1.16.json', import.meta.url);

let cached: RecipeFile | undefined;

export function loadRecipeFile(): RecipeFile {
  if (cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(RECIPE_FILE, 'utf8'));
  } catch (error) {
    throw new EnvError('ENV_INTERNAL', `cannot read the TextCraft recipes ${RECIPE_FILE.pathname}: ${String(error)}`);
  }
  const parsed = recipeFile.safeParse(raw);
  if (!parsed.success) {
    throw new EnvError('ENV_INTERNAL', `malformed TextCraft recipes ${RECIPE_FILE.pathname}: ${parsed.error.message}; regenerate with scripts/extract-textcraft-recipes.ts`);
  }
  cached = parsed.data;
  return cached;
}
