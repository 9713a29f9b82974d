/**
 * Chem-Mix (ScienceWorld `chemistry-mix`, `chemistry-mix-paint-secondary-color`,
 * `chemistry-mix-paint-tertiary-color`): bring a recipe's ingredients together in one container,
 * `mix` it, and focus on the product. A tertiary paint takes two rounds (secondary first).
 */
import { Rng } from '../../rng.ts';
import { ingredientId, recipeFor, type Recipe } from '../chemistry.ts';
import { buildHouse, fixture, item, substance, type RoomName } from '../house.ts';
import { act, carry, reach, walkTo } from '../oracle-steps.ts';
import type { Resolved } from '../parser.ts';
import { ScoreCard, type FamilyDef, type Goal, type SciTask } from '../task.ts';
import type { Thing } from '../thing.ts';
import type { World } from '../world.ts';

export const MIX_PRODUCTS = ['salt water', 'sugar water', 'soapy water', 'sodium acetate', 'mixed nuts', 'fruit salad'] as const;
const SECONDARY = ['green paint', 'orange paint', 'violet paint'] as const;
const TERTIARY = ['yellow-green paint', 'blue-green paint', 'red-orange paint', 'yellow-orange paint', 'red-violet paint', 'blue-violet paint'] as const;
const CUPS = ['wood cup', 'paper cup', 'plastic cup', 'clay cup', 'glass beaker'] as const;
const START_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'workshop', 'living room', 'bedroom', 'art studio', 'bathroom'];
const SOLID_ITEMS = new Set(['almond', 'cashew', 'peanut', 'apple', 'banana', 'orange']);

/** Stages to make `product`: the secondary paint first when a tertiary needs it. */
export function chain(product: string): Recipe[] {
  const last = recipeFor(product) as Recipe;
  const first = last.ingredients.map(recipeFor).find((r) => r !== undefined);
  return first ? [first, last] : [last];
}

const holds = (c: Thing, recipe: Recipe): boolean => recipe.ingredients.every((i) => c.children.some((x) => ingredientId(x) === i));

class MixGoal implements Goal {
  readonly card: ScoreCard;
  constructor(readonly stages: readonly Recipe[]) {
    const w = stages.length === 1 ? [35, 45] : [15, 25];
    this.card = new ScoreCard(Object.fromEntries(stages.flatMap((s) => [[`together: ${s.product}`, w[0]!], [`made: ${s.product}`, w[1]!]])));
  }

  get product(): string {
    return (this.stages[this.stages.length - 1] as Recipe).product;
  }

  focus(_world: World, thing: Thing): void {
    if (thing.kind === 'substance' && ingredientId(thing) === this.product) return this.card.succeed();
    this.card.fail();
  }

  update(world: World): void {
    const live = world.live();
    for (const s of this.stages) {
      if (live.some((c) => c.container && holds(c, s))) this.card.reach(`together: ${s.product}`);
      if (live.some((t) => ingredientId(t) === s.product)) this.card.reach(`made: ${s.product}`);
    }
  }
}

function build(taskName: string, variation: number): SciTask {
  const rng = Rng.fromString(`${taskName}/${variation}`);
  const world = buildHouse(rng, { start: rng.pick(START_ROOMS), closedDoorChance: 0.3 });
  const paint = taskName !== 'chemistry-mix';
  const product = taskName === 'chemistry-mix' ? rng.pick(MIX_PRODUCTS) : taskName.endsWith('secondary-color') ? rng.pick(SECONDARY) : rng.pick(TERTIARY);
  const stages = chain(product);
  const room = world.room(paint ? 'art studio' : 'kitchen');
  const spots = room.children.filter((c) => c.container && !c.device && c.kind === 'object' && !c.movable);
  let layout: string[];
  if (paint) {
    // One cup per primary, plus a second cup of the primary a tertiary paint uses twice.
    const primaries = ['red paint', 'blue paint', 'yellow paint'];
    const twice = stages.length === 2 ? (stages[1]!.ingredients.find((i) => primaries.includes(i)) as string) : null;
    const paints = rng.shuffle(twice ? [...primaries, twice] : primaries);
    const cups = rng.shuffle([...CUPS]);
    layout = paints.map((p, i) => {
      const cup = item(world, cups[i] as string, rng.pick(spots), 'wood', { container: true, aliases: ['cup'] });
      substance(world, p, cup);
      return `${p}@${cup.name}@${cup.parent!.name}`;
    });
  } else {
    const recipe = stages[0] as Recipe;
    layout = recipe.ingredients.map((ing) => {
      const spot = rng.pick(spots);
      if (ing === 'water') return 'water@sink';
      if (SOLID_ITEMS.has(ing)) {
        const food = item(world, ing, spot, 'organic');
        food.edible = true;
        return `${ing}@${spot.name}`;
      }
      const jar = item(world, rng.pick(['glass jar', 'plastic jar', 'tin jar']), spot, 'glass', { container: true, aliases: ['jar'] });
      substance(world, ing, jar);
      return `${ing}@${jar.name}@${spot.name}`;
    });
    if (recipe.ingredients.every((i) => SOLID_ITEMS.has(i))) item(world, 'bowl', rng.pick(spots), 'ceramic', { container: true });
  }
  const recipeCard = fixture(world, 'recipe', room, null);
  recipeCard.movable = true;
  recipeCard.text = stages.map((s) => `To make ${s.product}, you need to mix ${s.ingredients.join(' and ')}.`).join(' ');
  const description = paint
    ? `Your task is to use chemistry to create ${product}. When you are done, focus on the ${product}.`
    : `Your task is to use chemistry to create the substance '${product}'. A recipe and some of the ingredients might be found near the ${room.name}. When you are done, focus on the ${product}.`;
  const goal = new MixGoal(stages);
  return {
    family: 'chem-mix',
    taskName,
    variation,
    description,
    world,
    goal,
    signature: `${taskName}|${product}|${layout.join(',')}|${world.agentRoom().name}`,
    oracle: () => oracle(world, goal),
  };
}

/** The container to mix in: the one already holding an ingredient of `stage`, else a bowl. */
function vessel(world: World, stage: Recipe): Thing | undefined {
  const live = world.live();
  const holders = live.filter((c) => c.container && c.movable && c.children.some((x) => stage.ingredients.includes(ingredientId(x)) && ingredientId(x) !== 'water'));
  holders.sort((a, b) => b.children.length - a.children.length);
  return holders[0] ?? live.find((t) => t.name === 'bowl');
}

function oracle(world: World, goal: MixGoal): Resolved | string {
  const live = world.live();
  const done = live.find((t) => t.kind === 'substance' && ingredientId(t) === goal.product);
  if (done) return reach(world, done) ?? act('focus', done);
  const stage = goal.stages.find((s) => !live.some((t) => ingredientId(t) === s.product)) as Recipe;
  const pot = vessel(world, stage);
  if (!pot) return 'look around';
  const missing = stage.ingredients.find((i) => !pot.children.some((x) => ingredientId(x) === i));
  const sink = pot.parent?.device?.kind === 'sink' ? pot.parent : undefined;
  if (missing === 'water') {
    // Fill the container at a sink: put it in, turn the tap on; the water arrives next iteration.
    if (sink) return act('activate', sink);
    const kitchenSink = world.room('kitchen').children.find((c) => c.device?.kind === 'sink') as Thing;
    return carry(world, pot) ?? walkTo(world, world.room('kitchen')) ?? act('move', pot, kitchenSink);
  }
  if (sink?.device?.on) return act('deactivate', sink);
  const take = carry(world, pot);
  if (take) return take;
  if (!missing) return act('mix', pot);
  const source = live.find((t) => ingredientId(t) === missing && !t.isInside(pot)) as Thing;
  const from = source.parent?.container && source.parent.movable && source.parent.children.length === 1 ? source.parent : null;
  return reach(world, source) ?? (from ? act('pour', from, pot) : act('move', source, pot));
}

export const chemMixFamily: FamilyDef = {
  family: 'chem-mix',
  taskNames: ['chemistry-mix', 'chemistry-mix-paint-secondary-color', 'chemistry-mix-paint-tertiary-color'],
  build,
};
