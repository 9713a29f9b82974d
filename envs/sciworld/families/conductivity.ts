/**
 * Test-Conductivity (ScienceWorld `test-conductivity`, `test-conductivity-of-unknown-substances`):
 * find the object, focus on it, build a circuit battery → bulb → object → battery in the workshop,
 * and put the object in the box for conductive or for nonconductive things.
 */
import { Rng } from '../../rng.ts';
import { addTerminals } from '../circuits.ts';
import { answerBox, buildHouse, item, type RoomName } from '../house.ts';
import { act, carry, reach, walkTo } from '../oracle-steps.ts';
import type { Resolved } from '../parser.ts';
import { unknownSubstance } from '../substances.ts';
import { ScoreCard, type FamilyDef, type Goal, type SciTask } from '../task.ts';
import type { Terminal, Thing } from '../thing.ts';
import type { World } from '../world.ts';

/** Known test objects and what they are made of. */
export const TEST_OBJECTS: readonly (readonly [string, string])[] = [
  ['metal fork', 'steel'], ['plastic fork', 'plastic'], ['metal spoon', 'steel'], ['wooden spoon', 'wood'],
  ['iron nail', 'iron'], ['aluminum foil', 'aluminum'], ['paper clip', 'steel'], ['rubber band', 'rubber'],
  ['glass marble', 'glass'], ['ceramic plate', 'ceramic'], ['wood block', 'wood'], ['plastic ruler', 'plastic'],
  ['brass key', 'brass'], ['copper pipe', 'copper'], ['cotton ball', 'cotton'], ['zinc washer', 'zinc'],
  ['aluminum can', 'aluminum'], ['rubber duck', 'rubber'], ['eraser', 'rubber'], ['steel wool', 'steel'],
  ['pencil lead', 'graphite'], ['paper napkin', 'paper'], ['glass rod', 'glass'], ['copper wire spool', 'copper'],
  ['wooden ruler', 'wood'], ['iron key', 'iron'], ['plastic bottle cap', 'plastic'], ['ceramic tile', 'ceramic'],
];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const BOX_COLORS = ['blue', 'orange', 'green', 'yellow', 'red', 'purple'] as const;
const OBJECT_ROOMS: readonly RoomName[] = ['kitchen', 'workshop', 'living room', 'bedroom', 'hallway', 'art studio', 'bathroom', 'greenhouse'];
const START_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'workshop', 'living room', 'bedroom', 'art studio', 'greenhouse', 'bathroom'];

class ConductivityGoal implements Goal {
  readonly card = new ScoreCard({ focus: 20, carried: 10, 'in workshop': 10, circuit: 25, lit: 15 });
  focused = false;
  constructor(
    readonly target: Thing,
    readonly conductive: boolean,
    readonly yes: Thing,
    readonly no: Thing,
    readonly bulb: Thing,
  ) {}

  focus(_world: World, thing: Thing): void {
    if (thing !== this.target) return this.card.fail();
    this.focused = true;
    this.card.reach('focus');
  }

  update(world: World): void {
    if (!this.focused) return;
    const t = this.target;
    if (t.isInside(world.inventory)) this.card.reach('carried');
    if (t.room()?.name === 'workshop') this.card.reach('in workshop');
    if ((t.terminals ?? []).every((term) => term.connectedTo)) this.card.reach('circuit');
    if (this.bulb.device?.on && this.card.has('circuit')) this.card.reach('lit');
    if (t.isInside(this.yes)) return this.conductive ? this.card.succeed() : this.card.fail();
    if (t.isInside(this.no)) return this.conductive ? this.card.fail() : this.card.succeed();
  }
}

function build(taskName: string, variation: number): SciTask {
  const rng = Rng.fromString(`${taskName}/${variation}`);
  const unknown = taskName === 'test-conductivity-of-unknown-substances';
  const world = buildHouse(rng, { start: rng.pick(START_ROOMS), closedDoorChance: 0.3 });
  const room = world.room(unknown ? 'workshop' : rng.pick(OBJECT_ROOMS));
  let target: Thing;
  let conductive: boolean;
  if (unknown) {
    const letter = LETTERS[rng.int(LETTERS.length)] as string;
    conductive = rng.bool();
    target = world.add(`unknown substance ${letter}`, 'object', room);
    target.material = unknownSubstance(letter, 200 + rng.int(800), conductive);
    target.aliases = ['unknown substance', 'substance'];
    addTerminals(target, 'part');
  } else {
    const [name, material] = rng.pick(TEST_OBJECTS);
    target = item(world, name, room, material, { terminals: true });
    conductive = target.material!.conductive;
  }
  const colors = rng.shuffle([...BOX_COLORS]);
  const [yesColor, noColor] = [colors[0] as string, colors[1] as string];
  const shop = world.room('workshop');
  const yes = answerBox(world, yesColor, shop);
  const no = answerBox(world, noColor, shop);
  const bulb = world.things.find((t) => t.electrical === 'load') as Thing;
  const battery = world.things.find((t) => t.electrical === 'battery') as Thing;
  const name = target.name;
  const description =
    `Your task is to determine if ${name} is electrically conductive. The ${name} is located around the ${room.name}. ` +
    `First, focus on the ${name}. If it is electrically conductive, place it in the ${yesColor} box. ` +
    `If it is electrically nonconductive, place it in the ${noColor} box. The boxes are located around the workshop.`;
  const goal = new ConductivityGoal(target, conductive, yes, no, bulb);
  return {
    family: 'conductivity',
    taskName,
    variation,
    description,
    world,
    goal,
    signature: `${taskName}|${name}|${conductive}|${room.name}|${yesColor}/${noColor}|${world.agentRoom().name}`,
    oracle: () => oracle(world, goal, battery),
  };
}

function oracle(world: World, goal: ConductivityGoal, battery: Thing): Resolved {
  const t = goal.target;
  if (!goal.focused) return reach(world, t) ?? act('focus', t);
  const carrying = carry(world, t);
  if (carrying) return carrying;
  const toShop = walkTo(world, world.room('workshop'));
  if (toShop) return toShop;
  const [plus, minus] = battery.terminals as [Terminal, Terminal];
  const [bulbA, bulbC] = goal.bulb.terminals as [Terminal, Terminal];
  const [t1, t2] = t.terminals as [Terminal, Terminal];
  const wanted: [Terminal, Terminal][] = [[plus, bulbA], [bulbC, t1], [t2, minus]];
  for (const [a, b] of wanted) {
    if (a.connectedTo === b) continue;
    // Someone else's wiring is in the way: clear it before rebuilding the loop.
    const busy = a.connectedTo ? a : b.connectedTo ? b : null;
    if (busy) return act('disconnect', busy.owner);
    return { id: 'connect', args: [a, b] };
  }
  return act('move', t, goal.conductive ? goal.yes : goal.no);
}

export const conductivityFamily: FamilyDef = {
  family: 'conductivity',
  taskNames: ['test-conductivity', 'test-conductivity-of-unknown-substances'],
  build,
};
