/**
 * Measure (ScienceWorld `measure-melting-point-known-substance` and `…-unknown-substance`):
 * focus on the thermometer, focus on the substance, heat it until it melts while measuring, then
 * answer by focusing on the box for "melting point above T" or "below T".
 */
import { Rng } from '../../rng.ts';
import { answerBox, buildHouse, item, type RoomName } from '../house.ts';
import { act, carry, reach, walkTo } from '../oracle-steps.ts';
import type { Resolved } from '../parser.ts';
import { makeSubstance, phaseOf } from '../physics.ts';
import { SUBSTANCES, unknownSubstance, type Material } from '../substances.ts';
import { ScoreCard, type FamilyDef, type Goal, type SciTask } from '../task.ts';
import type { Thing } from '../thing.ts';
import type { World } from '../world.ts';
import { BOX_COLORS } from './conductivity.ts';

/** Known substances, all solid at room temperature except ice (kept in the freezer). */
export const MEASURE_SUBSTANCES = ['chocolate', 'butter', 'lead', 'tin', 'gallium', 'paraffin wax', 'palm oil', 'soap', 'marshmallow', 'sugar', 'water'] as const;
const HOLDERS = ['steel bowl', 'ceramic bowl', 'glass jar', 'clay pot', 'tin can'] as const;
const SUBSTANCE_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'bathroom', 'workshop', 'living room', 'art studio'];
const BOX_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'workshop', 'living room'];
const START_ROOMS: readonly RoomName[] = ['kitchen', 'hallway', 'workshop', 'living room', 'bedroom', 'art studio', 'greenhouse', 'bathroom'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

class MeasureGoal implements Goal {
  readonly card = new ScoreCard({ 'focus thermometer': 10, 'focus substance': 10, measured: 10, heating: 15, 'changed state': 25 });
  private readonly startPhase;
  constructor(
    readonly thermometer: Thing,
    readonly substance: Thing,
    readonly above: Thing,
    readonly below: Thing,
    readonly answerAbove: boolean,
  ) {
    this.startPhase = phaseOf(substance);
  }

  focus(_world: World, thing: Thing): void {
    if (thing === this.thermometer) return this.card.reach('focus thermometer');
    if (thing === this.substance) return this.card.reach('focus substance');
    const ready = this.card.has('focus thermometer') && this.card.has('focus substance');
    if (ready && thing === (this.answerAbove ? this.above : this.below)) return this.card.succeed();
    this.card.fail();
  }

  acted(_world: World, action: Resolved): void {
    const [device, patient] = action.args;
    if (action.id === 'use' && device === this.thermometer && (patient === this.substance || patient === this.substance.parent)) this.card.reach('measured');
  }

  update(_world: World): void {
    if (!this.card.has('focus substance')) return;
    // Heating counts once the container sits on a running appliance and the substance is warming.
    if (this.substance.temperature > 30 && this.substance.parent?.parent?.device?.on) this.card.reach('heating');
    if (phaseOf(this.substance) !== this.startPhase) this.card.reach('changed state');
  }
}

function build(taskName: string, variation: number): SciTask {
  const rng = Rng.fromString(`${taskName}/${variation}`);
  const world = buildHouse(rng, { start: rng.pick(START_ROOMS), closedDoorChance: 0.3 });
  let material: Material;
  if (taskName === 'measure-melting-point-unknown-substance') {
    material = unknownSubstance(LETTERS[rng.int(LETTERS.length)] as string, 30 + rng.int(370), rng.bool());
  } else {
    material = SUBSTANCES[rng.pick(MEASURE_SUBSTANCES)] as Material;
  }
  const ice = material.key === 'water';
  const room = world.room(ice ? 'kitchen' : rng.pick(SUBSTANCE_ROOMS));
  const spot = ice ? (world.things.find((t) => t.name === 'freezer') as Thing) : rng.bool() ? room : (room.children.find((c) => c.container?.prep === 'on') ?? room);
  const holder = item(world, rng.pick(HOLDERS), spot, 'ceramic', { container: true, aliases: ['container'] });
  const temperature = ice ? -20 : 20;
  holder.temperature = temperature;
  const substance = makeSubstance(world, material, holder, temperature);
  const name = substance.name;
  // Keep the threshold far enough from the melting point that the answer is never a rounding call.
  const offset = (10 + rng.int(50)) * (rng.bool() ? 1 : -1);
  const threshold = material.meltingPoint + offset;
  const colors = rng.shuffle([...BOX_COLORS]);
  const boxRoom = world.room(rng.pick(BOX_ROOMS));
  const above = answerBox(world, colors[0] as string, boxRoom);
  const below = answerBox(world, colors[1] as string, boxRoom);
  const thermometer = world.things.find((t) => t.name === 'thermometer') as Thing;
  const description =
    `Your task is to measure the melting point of ${name}, which is located around the ${room.name}. First, focus on the thermometer. ` +
    `Next, focus on the ${name}. If the melting point of ${name} is above ${threshold}.0 degrees celsius, focus on the ${above.name}. ` +
    `If the melting point of ${name} is below ${threshold}.0 degrees celsius, focus on the ${below.name}. The boxes are located around the ${boxRoom.name}.`;
  const goal = new MeasureGoal(thermometer, substance, above, below, material.meltingPoint > threshold);
  return {
    family: 'measure',
    taskName,
    variation,
    description,
    world,
    goal,
    signature: `${taskName}|${material.key}|${material.meltingPoint}|${threshold}|${room.name}|${boxRoom.name}|${above.name}/${below.name}|${world.agentRoom().name}`,
    oracle: () => oracle(world, goal),
  };
}

function oracle(world: World, goal: MeasureGoal): Resolved | string {
  const { thermometer, substance } = goal;
  const card = goal.card;
  if (!card.has('focus thermometer')) return reach(world, thermometer) ?? act('focus', thermometer);
  const carryThermometer = carry(world, thermometer);
  if (carryThermometer) return carryThermometer;
  if (!card.has('focus substance')) return reach(world, substance) ?? act('focus', substance);
  if (!card.has('changed state') || !card.has('measured')) {
    const holder = substance.parent as Thing;
    const stove = world.things.find((t) => t.device?.kind === 'stove') as Thing;
    if (holder.parent !== stove) return carry(world, holder) ?? walkTo(world, stove.room() as Thing) ?? act('move', holder, stove);
    if (!stove.device!.on) return act('activate', stove);
    if (!card.has('measured')) return act('use', thermometer, substance);
    return 'wait';
  }
  const box = goal.answerAbove ? goal.above : goal.below;
  return reach(world, box) ?? act('focus', box);
}

export const measureFamily: FamilyDef = {
  family: 'measure',
  taskNames: ['measure-melting-point-known-substance', 'measure-melting-point-unknown-substance'],
  build,
};
