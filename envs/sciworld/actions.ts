/**
 * Runs one resolved action on the world and answers in ScienceWorld's words (the messages of its
 * `scienceworld/actions/*.scala`). `focus on` and `task` belong to the task and are handled by
 * the env. Returns whether the action did something, so the env can flag invalid ones.
 */
import { mix } from './chemistry.ts';
import { describe, inventoryText, lookAround, lookIn } from './describe.ts';
import type { Entity, Resolved } from './parser.ts';
import { makeSubstance, phaseOf } from './physics.ts';
import { Terminal, type Thing } from './thing.ts';
import type { World } from './world.ts';

export interface Outcome {
  readonly message: string;
  readonly ok: boolean;
  /** Iterations the world advances after this action. */
  readonly ticks: number;
}

const done = (message: string, ticks = 1): Outcome => ({ message, ok: true, ticks });
const refuse = (message: string): Outcome => ({ message, ok: false, ticks: 1 });
const thing = (e: Entity | undefined): Thing => (e instanceof Terminal ? e.owner : (e as Thing));

/** ScienceWorld's checks before moving `obj` into `into` (ActionMoveObject.isValidAction). */
export function moveProblem(obj: Thing, into: Thing): string | null {
  if (!obj.movable) return `The ${obj.name} is not moveable.`;
  if (obj === into || into.isInside(obj)) return "You can't move something into itself.";
  const phase = phaseOf(obj);
  if (phase === 'liquid') return "You can't pick up a liquid directly.  Try pouring it from one container to another, or dunking empty containers into containers filled with the liquid.";
  if (phase === 'gas') return "You can't pick up a gas directly.";
  if (!into.container) return "That can't be moved there.";
  if (!into.container.open) return `That can't be moved there, because the ${into.name} isn't open.`;
  return null;
}

function moveInto(world: World, obj: Thing, into: Thing, where: string): Outcome {
  const problem = moveProblem(obj, into);
  if (problem) return refuse(problem);
  const disconnected = world.place(obj, into);
  return done(`${disconnected ? `(disconnecting ${obj.name})` : ''}You move the ${obj.name} to the ${where}.`);
}

export function execute(world: World, action: Resolved): Outcome {
  const [a, b] = action.args;
  const x = thing(a);
  switch (action.id) {
    case 'look around':
      return done(lookAround(world));
    case 'look at':
      if (a instanceof Terminal) return done(`${a.label}, which is connected to: ${a.connectedTo ? a.connectedTo.label : 'nothing'}`);
      return done(describe(world, x));
    case 'look in':
      if (!x.container) return refuse("It's not clear how to look inside of that.");
      if (!x.container.open) return refuse(`The ${x.name} isn't open, so you can't see inside.`);
      return done(lookIn(world, x));
    case 'read':
      return x.text ? done(x.text) : refuse(`There is nothing to read on the ${x.name}.`);
    case 'go':
      return go(world, x);
    case 'open':
    case 'close':
      return openClose(x, action.id === 'open');
    case 'pick up':
      if (x.parent === world.inventory) return refuse('That object already appears to be in the inventory.');
      return moveInto(world, x, world.inventory, 'inventory');
    case 'put down':
      if (x.parent !== world.inventory) return refuse('That object does not appear to be in the inventory.');
      return moveInto(world, x, world.agentRoom(), world.agentRoom().name);
    case 'move':
      return moveInto(world, x, thing(b), thing(b).name);
    case 'pour':
      return pour(world, x, thing(b));
    case 'dunk':
      return dunk(world, x, thing(b));
    case 'activate':
    case 'deactivate':
      return activate(x, action.id === 'activate');
    case 'use':
      return use(x, b === undefined ? undefined : thing(b));
    case 'connect':
      return connect(a as Entity, b as Entity);
    case 'disconnect':
      if (a instanceof Terminal) return refuse(`You must disconnect entire objects (such as ${a.owner.name}) instead of just single terminals`);
      for (const term of x.terminals ?? []) if (term.connectedTo) [term.connectedTo.connectedTo, term.connectedTo] = [null, null];
      return done(`${x.name} has been disconnected`);
    case 'mix':
      if (!x.container) return refuse("It's not clear how to mix that.");
      return done(mix(world, x));
    case 'eat':
      if (!x.edible) return refuse(`It's not clear how to eat the ${x.name}.`);
      world.remove(x);
      return done(`You eat the ${x.name}.`);
    case 'flush':
      if (x.name !== 'toilet') return refuse(`It's not clear how to flush the ${x.name}.`);
      for (const c of [...x.children]) world.remove(c);
      return done('The toilet flushes.');
    case 'wait':
      return done('You decide to wait for 10 iterations.', 10);
    case 'wait1':
      return done('You decide to wait for 1 iterations.', 1);
    case 'inventory':
      return done(inventoryText(world));
    case 'focus':
    case 'task':
      throw new Error(`"${action.id}" is the env's to handle`);
  }
}

function go(world: World, target: Thing): Outcome {
  const here = world.agentRoom();
  if (target.kind === 'door') {
    if (!target.door!.open) return refuse('The door is not open.');
    const there = world.otherSide(target, here);
    world.place(world.agent, there);
    return done(`You move through the door to the ${there.name}.`);
  }
  if (target.kind !== 'room') return refuse(`Its not clear how to go to/through a ${target.name}.`);
  const door = world.doorBetween(here, target);
  if (!door) return refuse("It's not clear how to get there from here.");
  if (!door.door!.open) return refuse('The door is not open.');
  world.place(world.agent, target);
  return done(`You move to the ${target.name}.`);
}

function openClose(x: Thing, open: boolean): Outcome {
  const verb = open ? 'open' : 'close';
  const state = x.door ?? (x.container?.closable ? x.container : undefined);
  if (!state) return refuse(`The ${x.name} is not ${open ? 'openable' : 'closeable'}.`);
  if (state.open === open) return refuse(`The ${x.name} is already ${open ? 'open' : 'closed'}.`);
  state.open = open;
  return done(`The ${x.name} is now ${verb === 'open' ? 'open' : 'closed'}.`);
}

function pour(world: World, x: Thing, into: Thing): Outcome {
  if (x === into) return refuse("You can't move something into itself.");
  const outOfContainer = x.container !== undefined;
  if (!x.movable) return refuse(`The ${x.name} is not moveable.`);
  if (!outOfContainer) {
    const holder = x.parent;
    if (!holder || holder.kind === 'room') return refuse(`The ${x.name} can't be poured out because it doesn't appear to be in a container.`);
    if (!holder.movable) return refuse(`The ${holder.name} the ${x.name} is in is not movable.`);
    const phase = phaseOf(x);
    if (phase === 'solid') return refuse("I'm not sure how to pour a solid. ");
    if (phase === 'gas') return refuse("You can't pour a gas directly. ");
  } else if (!x.container!.open) return refuse(`The ${x.name} can't be poured out, because it's not open.`);
  if (!into.container) return refuse("That can't be moved there, because it's not a container.");
  if (!into.container.open) return refuse(`That can't be moved there, because the ${into.name} isn't open.`);
  if (into.isInside(x)) return refuse("You can't move something into itself.");
  if (outOfContainer) {
    if (x.children.length === 0) return refuse(`The ${x.name} is empty, so there's nothing to pour.`);
    for (const c of [...x.children]) if (c.movable) world.place(c, into);
    return done(`You pour the contents of the ${x.name} into the ${into.name}.`);
  }
  world.place(x, into);
  return done(`You pour the ${x.name} into the ${into.name}.`);
}

/** Dipping an open container into a liquid fills it with that liquid (amounts are not modelled). */
function dunk(world: World, x: Thing, into: Thing): Outcome {
  if (!x.container?.open) return refuse(`The ${x.name} can't hold anything, so dunking it does nothing.`);
  const liquid = into.children.find((c) => c.kind === 'substance' && phaseOf(c) === 'liquid');
  if (!liquid || !liquid.material) return refuse(`There is no liquid in the ${into.name} to dunk the ${x.name} into.`);
  if (!x.children.some((c) => c.material === liquid.material)) makeSubstance(world, liquid.material, x, liquid.temperature);
  return done(`You dunk the ${x.name} into the ${into.name}.`);
}

function activate(x: Thing, on: boolean): Outcome {
  const device = x.device;
  if (!device || !device.activable) return refuse(`The ${x.name} is not something that can be activated.`);
  if (device.on === on) return refuse(`The ${x.name} is already ${on ? 'activated' : 'deactivated'}.`);
  device.on = on;
  return done(`The ${x.name} is now ${on ? 'activated' : 'deactivated'}.`);
}

function use(device: Thing, patient: Thing | undefined): Outcome {
  if (!device.usable) return refuse(`I'm not sure how to use the ${device.name}. `);
  if (!patient) return refuse(`What do you want to use the ${device.name} on?`);
  if (device.name.endsWith('thermometer')) return done(`the thermometer measures a temperature of ${Math.round(patient.temperature)} degrees celsius`);
  return refuse("I'm not sure how to use those two things together.");
}

function terminalOf(e: Entity): Terminal | string {
  if (e instanceof Terminal) return e;
  if (!e.terminals) return `It's not clear how to connect something to ${e.name}`;
  if (e.electrical !== 'part') return 'Connections must specify specific points of contact on polarized electrical components (e.g. anode, cathode)';
  if (e.name.endsWith('wire')) return 'Connections must specify specific points of contact on unpolarized electrical components (e.g. terminal 1, terminal 2)';
  return e.terminals.find((t) => !t.connectedTo) ?? `${e.name} is already connected, and must be disconnected before it can be connected to something else`;
}

function connect(ea: Entity, eb: Entity): Outcome {
  const ta = terminalOf(ea);
  if (typeof ta === 'string') return refuse(ta);
  const tb = terminalOf(eb);
  if (typeof tb === 'string') return refuse(tb);
  if (ta === tb) return refuse("Something can't be connected to itself.");
  for (const term of [ta, tb]) {
    if (term.connectedTo) return refuse(`${term.label} is already connected, and must be disconnected before it can be connected to something else`);
  }
  ta.connectedTo = tb;
  tb.connectedTo = ta;
  return done(`${ta.label} is now connected to ${tb.label}`);
}
