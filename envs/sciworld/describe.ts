/**
 * Text, in ScienceWorld's words: room views ("This room is called the kitchen. In it, you
 * see: …"), object descriptions ("a glass cup (containing a substance called water)", "a stove,
 * which is turned off. On the stove is: nothing."), the inventory and `look in`.
 */
import { describeTerminals, isConnected } from './circuits.ts';
import { describeLiving } from './life.ts';
import { article, type Thing } from './thing.ts';
import type { World } from './world.ts';

const degrees = (t: number): string => `${Math.round(t)} degrees celsius`;

function contentsList(world: World, thing: Thing): string {
  const items = thing.children.filter((c) => c !== world.agent).map((c) => describe(world, c));
  return items.length === 0 ? 'nothing' : items.join(', ');
}

/** One object as it appears in a list or under `look at`. */
export function describe(world: World, thing: Thing): string {
  if (thing.kind === 'room') return lookAround(world, thing);
  if (thing.kind === 'door') return describeDoor(world, thing, world.agentRoom());
  if (thing.kind === 'substance') return `a substance called ${thing.name}`;
  if (thing.kind === 'plant' || thing.kind === 'animal') return describeLiving(thing);
  if (thing.kind === 'agent') return 'the agent';
  if (thing.kind === 'inventory') return `the inventory`;
  let text = article(thing.name);
  if (thing.usable && thing.name.endsWith('thermometer')) text += `, currently reading a temperature of ${degrees(thing.temperature)}`;
  const device = thing.device;
  if (device?.activable) {
    text += device.kind === 'bulb' || device.kind === 'switch' ? `, which is ${device.on ? 'on' : 'off'}` : `, which is turned ${device.on ? 'on' : 'off'}`;
  } else if (device?.kind === 'bulb') {
    text += `, which is ${device.on ? 'on' : 'off'}`;
  }
  const c = thing.container;
  if (c) {
    const name = thing.name;
    if (c.hasDoor && !c.open) text += `. The ${name} door is closed.`;
    else if (c.hasDoor) text += `. The ${name} door is open. In the ${name} is: ${contentsList(world, thing)}.`;
    else if (!c.open) text += `. The ${name} is closed.`;
    else if (c.prep === 'on') text += `. On the ${name} is: ${contentsList(world, thing)}.`;
    else if (device) text += `. In the ${name} is: ${contentsList(world, thing)}.`;
    else text += ` (containing ${contentsList(world, thing)})`;
  }
  if (thing.terminals && (thing.electrical !== 'part' || thing.name.endsWith('wire') || isConnected(thing))) {
    text += `${text.endsWith('.') ? ' ' : '. '}${describeTerminals(thing)}`;
  }
  return text;
}

export function describeDoor(world: World, door: Thing, from: Thing): string {
  return `A door to the ${world.otherSide(door, from).name} (that is ${door.door!.open ? 'open' : 'closed'})`;
}

export function lookAround(world: World, room: Thing = world.agentRoom()): string {
  const lines = [`This room is called the ${room.name}. In it, you see: `];
  if (world.agent.parent === room) lines.push('\tthe agent');
  for (const c of room.children) if (c !== world.agent) lines.push(`\t${describe(world, c)}`);
  lines.push('You also see:');
  for (const d of world.doorsOf(room)) lines.push(`\t${describeDoor(world, d, room)}`);
  return `${lines.join('\n')}\n`;
}

export function inventoryText(world: World): string {
  const items = world.inventory.children.map((c) => `\t${describe(world, c)}\n`);
  return `In your inventory, you see:\n${items.length > 0 ? items.join('') : '\tnothing\n'}`;
}

export function lookIn(world: World, thing: Thing): string {
  if (thing.children.length === 0) return `There is nothing in the ${thing.name}.\n`;
  return `Inside the ${thing.name} is: \n${thing.children.map((c) => `\t${describe(world, c)}\n`).join('')}\n`;
}

/** "glass cup (in table, in kitchen)": how the ambiguity prompt tells same-named things apart. */
export function clarify(world: World, thing: Thing): string {
  if (thing.kind === 'room') return thing.name;
  const name = thing.kind === 'door' ? `door to ${world.otherSide(thing, world.agentRoom()).name}` : thing.name;
  const chain = thing.kind === 'door' ? [world.agentRoom()] : thing.ancestors();
  return chain.length === 0 ? name : `${name} (${chain.map((a) => `in ${a.name}`).join(', ')})`;
}
