/**
 * Lifespan (ScienceWorld `lifespan-longest-lived`, `lifespan-shortest-lived`,
 * `lifespan-longest-lived-then-shortest-lived`): go outside and focus on the animal with the
 * longest (or shortest) life span; the last variant asks for the longest, then the shortest.
 */
import { Rng } from '../../rng.ts';
import { buildHouse, type RoomName } from '../house.ts';
import { LIFESPANS, makeAnimal } from '../life.ts';
import { act, reach } from '../oracle-steps.ts';
import type { Resolved } from '../parser.ts';
import { ScoreCard, type FamilyDef, type Goal, type SciTask } from '../task.ts';
import type { Thing } from '../thing.ts';
import type { World } from '../world.ts';

const START_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'greenhouse', 'bathroom', 'foundry', 'workshop', 'art studio'];

class LifespanGoal implements Goal {
  readonly card: ScoreCard;
  private index = 0;
  constructor(readonly order: readonly Thing[]) {
    this.card = new ScoreCard(order.length === 1 ? { outside: 20 } : { outside: 20, first: 40 });
  }

  /** The animal to focus on next. */
  get next(): Thing | undefined {
    return this.order[this.index];
  }

  focus(_world: World, thing: Thing): void {
    if (this.index > 0 && thing === this.order[this.index - 1]) return;
    if (thing !== this.next) return this.card.fail();
    this.index += 1;
    if (this.index === 1 && this.order.length > 1) this.card.reach('first');
    if (this.index === this.order.length) this.card.succeed();
  }

  update(world: World): void {
    if (world.agentRoom().name === 'outside') this.card.reach('outside');
  }
}

function build(taskName: string, variation: number): SciTask {
  const rng = Rng.fromString(`${taskName}/${variation}`);
  const world = buildHouse(rng, { start: rng.pick(START_ROOMS), closedDoorChance: 0.3 });
  // Animals with clearly different lifespans, so the answer is a fact and not a near tie.
  const species = rng.shuffle(Object.keys(LIFESPANS));
  const chosen: string[] = [];
  for (const s of species) {
    if (chosen.length === 3) break;
    const span = LIFESPANS[s] as number;
    if (chosen.every((c) => Math.max(span, LIFESPANS[c]!) / Math.min(span, LIFESPANS[c]!) >= 1.5)) chosen.push(s);
  }
  const outside = world.room('outside');
  const animals = chosen.map((s) => makeAnimal(world, s, outside, rng.pick(['baby', 'juvenile', 'adult'] as const)));
  const byLife = [...animals].sort((a, b) => b.life!.lifespanYears - a.life!.lifespanYears);
  const [longest, shortest] = [byLife[0] as Thing, byLife[byLife.length - 1] as Thing];
  let description: string;
  let order: Thing[];
  if (taskName === 'lifespan-longest-lived') {
    description = "Your task is to find the animal with the longest life span. The animals are in the 'outside' location. Focus on the animal with the longest life span.";
    order = [longest];
  } else if (taskName === 'lifespan-shortest-lived') {
    description = "Your task is to find the animal with the shortest life span. The animals are in the 'outside' location. Focus on the animal with the shortest life span.";
    order = [shortest];
  } else {
    description =
      "Your task is to find the animal with the longest life span, then the shortest life span. First, focus on the animal with the longest life span. Then, focus on the animal with the shortest life span. The animals are in the 'outside' location.";
    order = [longest, shortest];
  }
  const goal = new LifespanGoal(order);
  return {
    family: 'lifespan',
    taskName,
    variation,
    description,
    world,
    goal,
    signature: `${taskName}|${[...chosen].sort().join(',')}|${world.agentRoom().name}`,
    oracle: (): Resolved => {
      const target = goal.next as Thing;
      return reach(world, target) ?? act('focus', target);
    },
  };
}

export const lifespanFamily: FamilyDef = {
  family: 'lifespan',
  taskNames: ['lifespan-longest-lived', 'lifespan-shortest-lived', 'lifespan-longest-lived-then-shortest-lived'],
  build,
};
