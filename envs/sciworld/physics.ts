/**
 * Heat and changes of state. Each iteration, every thing's temperature moves a fixed fraction of
 * the way toward the temperature of its surroundings: the nearest active heat source or cooler
 * among its containers, else the room's air. A substance's name follows its state of matter
 * ("lead" → "liquid lead", "ice" → "water" → "steam").
 *
 * The fraction (0.1 per iteration, and at most 25 °C) is chosen so that a stove melts chocolate
 * in a step or two and lead in about two `wait`s (10 iterations each): slow enough that watching
 * the change is part of the task, fast enough for a 30-turn horizon.
 */
import { nameFor, phaseAt, SUBSTANCES, type Material, type Phase } from './substances.ts';
import type { DeviceKind, Thing } from './thing.ts';
import type { World } from './world.ts';

export const HEAT_RATE = 0.1;
/** Largest change of temperature in one iteration (°C). */
export const MAX_HEAT_STEP = 25;

/** Temperature each appliance drives its contents toward while active (°C). */
export const DEVICE_TEMPERATURE: Partial<Record<DeviceKind, number>> = {
  stove: 500,
  oven: 250,
  furnace: 1800,
  fridge: 4,
  freezer: -20,
};

export const ROOM_TEMPERATURE = 20;
export const OUTSIDE_TEMPERATURE = 15;
/** Tap water, as a sink delivers it. */
export const TAP_TEMPERATURE = 15;

/** Creates a substance under `parent`, named for its state at `temperature`. */
export function makeSubstance(world: World, material: Material, parent: Thing, temperature: number): Thing {
  const thing = world.add(nameFor(material, phaseAt(material, temperature)), 'substance', parent, { temperature });
  thing.material = material;
  thing.aliases = ['substance'];
  return thing;
}

export function phaseOf(thing: Thing): Phase {
  return thing.kind === 'substance' && thing.material ? phaseAt(thing.material, thing.temperature) : 'solid';
}

/** The temperature a thing's surroundings drive it toward. */
export function surroundings(thing: Thing): number {
  for (let p = thing.parent; p; p = p.parent) {
    const target = p.device?.on ? DEVICE_TEMPERATURE[p.device.kind] : undefined;
    if (target !== undefined) return target;
    if (p.kind === 'room') return p.name === 'outside' ? OUTSIDE_TEMPERATURE : ROOM_TEMPERATURE;
  }
  return ROOM_TEMPERATURE;
}

export function tickThermal(world: World): void {
  for (const thing of world.live()) {
    if (thing.kind === 'agent' || thing.kind === 'inventory') continue;
    const target = surroundings(thing);
    const gap = target - thing.temperature;
    // Snap the last degree so readings settle instead of creeping forever.
    const step = Math.max(-MAX_HEAT_STEP, Math.min(MAX_HEAT_STEP, gap * HEAT_RATE));
    thing.temperature = Math.abs(gap) < 1 ? target : thing.temperature + step;
    if (thing.kind === 'substance' && thing.material) thing.name = nameFor(thing.material, phaseAt(thing.material, thing.temperature));
  }
}

/** A running sink fills the open containers in it with water. */
export function tickDevices(world: World): void {
  for (const sink of world.things) {
    if (sink.device?.kind !== 'sink' || !sink.device.on || !sink.room()) continue;
    for (const cup of [...sink.children]) {
      if (!cup.container?.open || cup.container.prep !== 'in') continue;
      if (cup.children.some((c) => c.material === SUBSTANCES['water'])) continue;
      makeSubstance(world, SUBSTANCES['water'] as Material, cup, TAP_TEMPERATURE);
    }
  }
}
