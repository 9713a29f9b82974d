/**
 * Find (ScienceWorld `find-living-thing`, `find-non-living-thing`, `find-plant`, `find-animal`):
 * focus on a thing of the asked kind, then move it to the named box. Focusing on a thing of
 * another kind ends the task with 0.
 */
import { Rng } from '../../rng.ts';
import { answerBox, buildHouse, item, type RoomName } from '../house.ts';
import { makeAnimal, makePlant } from '../life.ts';
import { act, carry, pathTo, reach, walkTo } from '../oracle-steps.ts';
import type { Resolved } from '../parser.ts';
import { phaseOf } from '../physics.ts';
import { ScoreCard, type FamilyDef, type Goal, type SciTask } from '../task.ts';
import type { Thing } from '../thing.ts';
import type { World } from '../world.ts';
import { BOX_COLORS, TEST_OBJECTS } from './conductivity.ts';

type Category = 'living thing' | 'non-living thing' | 'plant' | 'animal';
const CATEGORY: Readonly<Record<string, Category>> = {
  'find-living-thing': 'living thing',
  'find-non-living-thing': 'non-living thing',
  'find-plant': 'plant',
  'find-animal': 'animal',
};
export const FIND_ANIMALS = ['butterfly', 'frog', 'rabbit', 'beaver', 'chipmunk', 'dragonfly', 'bee', 'mouse', 'wolf', 'parrot', 'hamster'] as const;
const PLANTS = ['apple tree', 'banana tree', 'pea plant', 'rose plant', 'sunflower plant', 'lemon tree'] as const;
const BOX_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'workshop', 'living room', 'bedroom', 'bathroom', 'art studio', 'greenhouse'];
const START_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'workshop', 'living room', 'bedroom', 'art studio', 'greenhouse', 'bathroom', 'outside'];

export function matches(category: Category, thing: Thing): boolean {
  if (category === 'plant') return thing.kind === 'plant' && thing.isLiving();
  if (category === 'animal') return thing.kind === 'animal' && thing.isLiving();
  if (category === 'living thing') return thing.isLiving();
  return !thing.life && (thing.kind === 'object' || thing.kind === 'substance');
}

class FindGoal implements Goal {
  readonly card = new ScoreCard({ focus: 30, carried: 20, 'in box room': 15 });
  target: Thing | null = null;
  constructor(
    readonly category: Category,
    readonly box: Thing,
  ) {}

  focus(_world: World, thing: Thing): void {
    if (this.target === thing) return;
    if (this.target || !matches(this.category, thing)) return this.card.fail();
    this.target = thing;
    this.card.reach('focus');
  }

  update(world: World): void {
    const t = this.target;
    if (!t) return;
    if (t.isInside(world.inventory)) this.card.reach('carried');
    if (t.room() === this.box.room()) this.card.reach('in box room');
    if (t.isInside(this.box)) this.card.succeed();
  }
}

function build(taskName: string, variation: number): SciTask {
  const rng = Rng.fromString(`${taskName}/${variation}`);
  const category = CATEGORY[taskName] as Category;
  const world = buildHouse(rng, { start: rng.pick(START_ROOMS), closedDoorChance: 0.3 });
  const outside = world.room('outside');
  const animals = rng.shuffle([...FIND_ANIMALS]).slice(0, 1 + rng.int(3));
  for (const species of animals) makeAnimal(world, species, outside, rng.pick(['baby', 'juvenile', 'adult'] as const));
  const greenhouse = world.room('greenhouse');
  const plant = rng.pick(PLANTS);
  const pot = item(world, 'flower pot 3', greenhouse, 'ceramic', { container: true, aliases: ['flower pot', 'pot'] });
  makePlant(world, plant, pot, rng.pick(['seedling', 'adult'] as const));
  // A few ordinary objects around the house: the non-living candidates and distractors.
  for (const [name, material] of rng.shuffle([...TEST_OBJECTS]).slice(0, 3)) item(world, name, world.room(rng.pick(BOX_ROOMS)), material);
  const color = rng.pick(BOX_COLORS);
  const boxRoom = world.room(rng.pick(BOX_ROOMS));
  const box = answerBox(world, color, boxRoom);
  const description = `Your task is to find a(n) ${category}. First, focus on the thing. Then, move it to the ${box.name} in the ${boxRoom.name}.`;
  const goal = new FindGoal(category, box);
  return {
    family: 'find',
    taskName,
    variation,
    description,
    world,
    goal,
    signature: `${taskName}|${animals.join(',')}|${plant}|${box.name}|${boxRoom.name}|${world.agentRoom().name}`,
    oracle: () => oracle(world, goal),
  };
}

/** The nearest movable thing of the category (a plant travels in its flower pot). */
function chooseTarget(world: World, goal: FindGoal): Thing | undefined {
  const candidates = world.live().filter((t) => matches(goal.category, t) && t.movable && phaseOf(t) === 'solid' && t !== goal.box && !t.container && t.room());
  const distance = (t: Thing): number => pathTo(world, t.room() as Thing).length * 100 + t.id / 1000;
  return candidates.sort((a, b) => distance(a) - distance(b))[0];
}

function oracle(world: World, goal: FindGoal): Resolved | string {
  const target = goal.target ?? chooseTarget(world, goal);
  if (!target) return 'look around';
  if (!goal.target) return reach(world, target) ?? act('focus', target);
  const carried = target.kind === 'plant' && target.parent?.movable ? target.parent : target;
  return carry(world, carried) ?? walkTo(world, goal.box.room() as Thing) ?? act('move', carried, goal.box);
}

export const findFamily: FamilyDef = {
  family: 'find',
  taskNames: ['find-living-thing', 'find-non-living-thing', 'find-plant', 'find-animal'],
  build,
};
