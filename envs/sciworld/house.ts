/**
 * The standard map, after ScienceWorld's: a hallway joining the art studio, bedroom, greenhouse,
 * kitchen, living room and workshop; the kitchen opens onto the bathroom and outside; outside
 * joins the greenhouse and the foundry. Each room holds its usual furniture and appliances; tasks
 * add their own objects (substances, test objects, answer boxes, animals) on top.
 */
import { addTerminals } from './circuits.ts';
import { makePlant } from './life.ts';
import { makeSubstance, OUTSIDE_TEMPERATURE } from './physics.ts';
import { OBJECT_MATERIALS, SUBSTANCES, type Material } from './substances.ts';
import type { DeviceKind, Thing } from './thing.ts';
import type { Rng } from '../rng.ts';
import { World } from './world.ts';

export const ROOMS = ['kitchen', 'hallway', 'bathroom', 'workshop', 'art studio', 'greenhouse', 'outside', 'foundry', 'bedroom', 'living room'] as const;
export type RoomName = (typeof ROOMS)[number];

const LINKS: readonly [RoomName, RoomName][] = [
  ['hallway', 'art studio'],
  ['hallway', 'bedroom'],
  ['hallway', 'greenhouse'],
  ['hallway', 'kitchen'],
  ['hallway', 'living room'],
  ['hallway', 'workshop'],
  ['kitchen', 'bathroom'],
  ['kitchen', 'outside'],
  ['greenhouse', 'outside'],
  ['outside', 'foundry'],
];

const mat = (key: string): Material => (OBJECT_MATERIALS[key] ?? SUBSTANCES[key]) as Material;

/** Furniture and appliances: fixed in place. */
export function fixture(world: World, name: string, parent: Thing, prep: 'in' | 'on' | null, opts: { door?: boolean; device?: DeviceKind; on?: boolean } = {}): Thing {
  const thing = world.add(name, 'object', parent, { movable: false });
  if (prep) thing.container = { prep, open: !opts.door, closable: opts.door === true, hasDoor: opts.door === true };
  if (opts.device) thing.device = { kind: opts.device, on: opts.on ?? false, activable: opts.device !== 'fridge' && opts.device !== 'freezer' };
  return thing;
}

/** A movable object made of `material`; `container` makes it a cup/pot/jar. */
export function item(world: World, name: string, parent: Thing, material: string, opts: { container?: boolean; aliases?: string[]; terminals?: boolean } = {}): Thing {
  const thing = world.add(name, 'object', parent);
  thing.material = mat(material);
  if (opts.container) thing.container = { prep: 'in', open: true, closable: false, hasDoor: false };
  if (opts.aliases) thing.aliases = opts.aliases;
  if (opts.terminals) addTerminals(thing, 'part');
  thing.temperature = parent.room()?.name === 'outside' ? OUTSIDE_TEMPERATURE : 20;
  return thing;
}

export function substance(world: World, key: string, parent: Thing, temperature = 20): Thing {
  return makeSubstance(world, mat(key), parent, temperature);
}

/** An answer box ("the blue box"): an open container that stays where it is. */
export function answerBox(world: World, color: string, room: Thing): Thing {
  const box = world.add(`${color} box`, 'object', room, { movable: false });
  box.container = { prep: 'in', open: true, closable: false, hasDoor: false };
  box.aliases = ['box'];
  box.material = mat('cotton');
  return box;
}

export interface HouseOptions {
  readonly start: RoomName;
  /** Chance that a door starts closed (ScienceWorld varies door states by variation). */
  readonly closedDoorChance: number;
}

export function buildHouse(rng: Rng, options: HouseOptions): World {
  const world = new World();
  for (const name of ROOMS) {
    const room = world.add(name, 'room', null, { temperature: name === 'outside' ? OUTSIDE_TEMPERATURE : 20 });
    if (name === 'greenhouse') room.aliases = ['green house'];
    substance(world, 'air', room).movable = false;
  }
  for (const [a, b] of LINKS) world.connect(world.room(a), world.room(b), rng.next() >= options.closedDoorChance);
  furnish(world);
  world.place(world.agent, world.room(options.start));
  return world;
}

function furnish(world: World): void {
  const r = (n: RoomName) => world.room(n);
  const k = r('kitchen');
  fixture(world, 'chair', k, 'on');
  fixture(world, 'counter', k, 'on');
  const cupboard = fixture(world, 'cupboard', k, 'in', { door: true });
  item(world, 'metal pot', cupboard, 'steel', { container: true, aliases: ['pot'] });
  item(world, 'tin cup', cupboard, 'tin', { container: true, aliases: ['cup'] });
  item(world, 'ceramic cup', cupboard, 'ceramic', { container: true, aliases: ['cup'] });
  fixture(world, 'freezer', k, 'in', { door: true, device: 'freezer', on: true });
  fixture(world, 'fridge', k, 'in', { door: true, device: 'fridge', on: true });
  fixture(world, 'oven', k, 'in', { door: true, device: 'oven' });
  fixture(world, 'stove', k, 'on', { device: 'stove' });
  fixture(world, 'sink', k, 'in', { device: 'sink' });
  const table = fixture(world, 'table', k, 'on');
  item(world, 'glass cup', table, 'glass', { container: true, aliases: ['cup'] });
  const thermometer = item(world, 'thermometer', k, 'glass');
  thermometer.usable = true;
  fixture(world, 'painting', k, null);

  const bath = r('bathroom');
  fixture(world, 'bathtub', bath, 'in');
  fixture(world, 'toilet', bath, 'in');
  fixture(world, 'sink', bath, 'in', { device: 'sink' });
  item(world, 'drawing', bath, 'paper');

  const shop = r('workshop');
  const bench = fixture(world, 'table', shop, 'on');
  addTerminals(item(world, 'battery', bench, 'zinc'), 'battery');
  const bulb = addTerminals(item(world, 'light bulb', bench, 'glass', { aliases: ['bulb'] }), 'load');
  bulb.device = { kind: 'bulb', on: false, activable: false };
  for (const color of ['red', 'black', 'blue']) addTerminals(item(world, `${color} wire`, bench, 'copper', { aliases: ['wire'] }), 'part');

  const art = r('art studio');
  fixture(world, 'table', art, 'on');
  fixture(world, 'large cupboard', art, 'in', { door: true });
  item(world, 'jug', art, 'glass', { container: true });

  const green = r('greenhouse');
  for (const [i, species] of (['peach tree', 'orange tree'] as const).entries()) {
    const pot = item(world, `flower pot ${i + 1}`, green, 'ceramic', { container: true, aliases: ['flower pot', 'pot'] });
    substance(world, 'water', pot);
    substance(world, 'soil', pot);
    makePlant(world, species, pot, 'adult');
  }
  item(world, 'shovel', green, 'steel');
  fixture(world, 'sink', green, 'in', { device: 'sink' });

  const out = r('outside');
  item(world, 'axe', out, 'steel');
  fixture(world, 'fire pit', out, 'in');

  const foundry = r('foundry');
  fixture(world, 'blast furnace', foundry, 'in', { door: true, device: 'furnace' });
  fixture(world, 'sink', foundry, 'in', { device: 'sink' });
  fixture(world, 'table', foundry, 'on');

  const bed = r('bedroom');
  fixture(world, 'bed', bed, 'on');
  fixture(world, 'closet', bed, 'in', { door: true });
  const book = item(world, 'book', bed, 'paper');
  book.text = 'The book is titled "A Short History of Thermometers". Mercury and alcohol expand as they warm.';

  const living = r('living room');
  fixture(world, 'couch', living, 'on');
  fixture(world, 'desk', living, 'on');
  fixture(world, 'bookshelf', living, 'on');

  fixture(world, 'picture', r('hallway'), null);
}
