/**
 * Mixing. `mix X` looks at what container X holds; when the kinds of things in it are exactly a
 * recipe's ingredients (amounts do not matter, as in ScienceWorld), they are replaced by the
 * product. Paints follow the colour wheel: primary + primary → secondary, primary + adjacent
 * secondary → tertiary.
 */
import { makeSubstance } from './physics.ts';
import { liquidAtRoom, type Material } from './substances.ts';
import type { Thing } from './thing.ts';
import type { World } from './world.ts';

export interface Recipe {
  readonly product: string;
  /** Ingredient ids: a substance's material key, or an object's name ("banana"). */
  readonly ingredients: readonly string[];
}

const liquid = (key: string): Material => liquidAtRoom(key, -5, 101);
const solid = (key: string): Material => ({ key, meltingPoint: 1000, boilingPoint: 2000, conductive: false });

/** Products as materials, so they show and heat like other substances. */
export const PRODUCTS: Readonly<Record<string, Material>> = Object.fromEntries(
  [
    ...['salt water', 'sugar water', 'soapy water', 'sodium acetate'].map(liquid),
    ...['mixed nuts', 'fruit salad'].map(solid),
    ...['green', 'orange', 'violet', 'yellow-green', 'blue-green', 'red-orange', 'yellow-orange', 'red-violet', 'blue-violet'].map((c) => liquid(`${c} paint`)),
  ].map((mat) => [mat.key, mat]),
);

export const PRIMARY_PAINTS = ['red paint', 'blue paint', 'yellow paint'] as const;

export const RECIPES: readonly Recipe[] = [
  { product: 'salt water', ingredients: ['sodium chloride', 'water'] },
  { product: 'sugar water', ingredients: ['sugar', 'water'] },
  { product: 'soapy water', ingredients: ['soap', 'water'] },
  { product: 'sodium acetate', ingredients: ['sodium bicarbonate', 'acetic acid'] },
  { product: 'mixed nuts', ingredients: ['almond', 'cashew', 'peanut'] },
  { product: 'fruit salad', ingredients: ['apple', 'banana', 'orange'] },
  { product: 'green paint', ingredients: ['blue paint', 'yellow paint'] },
  { product: 'orange paint', ingredients: ['red paint', 'yellow paint'] },
  { product: 'violet paint', ingredients: ['blue paint', 'red paint'] },
  { product: 'yellow-green paint', ingredients: ['green paint', 'yellow paint'] },
  { product: 'blue-green paint', ingredients: ['blue paint', 'green paint'] },
  { product: 'red-orange paint', ingredients: ['orange paint', 'red paint'] },
  { product: 'yellow-orange paint', ingredients: ['orange paint', 'yellow paint'] },
  { product: 'red-violet paint', ingredients: ['red paint', 'violet paint'] },
  { product: 'blue-violet paint', ingredients: ['blue paint', 'violet paint'] },
];

export function recipeFor(product: string): Recipe | undefined {
  return RECIPES.find((r) => r.product === product);
}

export function ingredientId(thing: Thing): string {
  return thing.kind === 'substance' && thing.material ? thing.material.key : thing.name;
}

/** The recipe the container's contents make, if any. */
export function matchRecipe(contents: readonly Thing[]): Recipe | undefined {
  const have = [...new Set(contents.map(ingredientId))].sort();
  return RECIPES.find((r) => r.ingredients.length === have.length && [...r.ingredients].sort().every((i, k) => i === have[k]));
}

/** Runs `mix` on a container and returns ScienceWorld-style feedback. */
export function mix(world: World, container: Thing): string {
  const contents = [...container.children];
  const recipe = matchRecipe(contents);
  if (!recipe) {
    return contents.length < 2 ? `There is not enough in the ${container.name} to mix.` : `Mixing the contents of the ${container.name} does not produce anything new.`;
  }
  const temperature = contents.reduce((s, c) => s + c.temperature, 0) / contents.length;
  for (const c of contents) world.remove(c);
  makeSubstance(world, PRODUCTS[recipe.product] as Material, container, temperature);
  return `Chemicals in the ${container.name} mix to produce ${recipe.product}.`;
}
