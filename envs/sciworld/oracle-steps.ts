/**
 * Building blocks of the family oracles: walk to a room (opening doors on the way), reach a thing
 * (walking there and opening the closed containers around it), and carry a thing. Each returns
 * the next intended action, or null when there is nothing left to do for that step.
 */
import type { Resolved } from './parser.ts';
import type { Thing } from './thing.ts';
import type { World } from './world.ts';

const act = (id: Resolved['id'], ...args: Thing[]): Resolved => ({ id, args });

/** Rooms on the shortest walk from the agent's room to `target` (BFS over doors). */
export function pathTo(world: World, target: Thing): Thing[] {
  const start = world.agentRoom();
  const prev = new Map<Thing, Thing | null>([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const room = queue.shift() as Thing;
    if (room === target) break;
    for (const d of world.doorsOf(room)) {
      const next = world.otherSide(d, room);
      if (!prev.has(next)) {
        prev.set(next, room);
        queue.push(next);
      }
    }
  }
  const path: Thing[] = [];
  for (let r: Thing | null | undefined = target; r && r !== start; r = prev.get(r)) path.unshift(r);
  return path;
}

/** Next step toward `room`: open the door ahead, else go through it. */
export function walkTo(world: World, room: Thing): Resolved | null {
  const here = world.agentRoom();
  if (here === room) return null;
  const next = pathTo(world, room)[0];
  if (!next) return null;
  const door = world.doorBetween(here, next) as Thing;
  return door.door!.open ? act('go', next) : act('open', door);
}

/** Next step to make `thing` accessible: walk to its room, then open what encloses it. */
export function reach(world: World, thing: Thing): Resolved | null {
  const room = thing.room();
  if (!room) return null;
  const walk = walkTo(world, room);
  if (walk) return walk;
  const closed = thing.ancestors().reverse().find((a) => a.container && !a.container.open && a.kind !== 'room');
  return closed ? act('open', closed) : null;
}

/** Next step to have `thing` in the inventory. */
export function carry(world: World, thing: Thing): Resolved | null {
  if (thing.isInside(world.inventory)) return null;
  return reach(world, thing) ?? act('pick up', thing);
}

export { act };
