/**
 * The opening GoToImpUnlock (goto.py) and Unlock (unlock.py) share: a locked door on a random
 * room, its key in another room, then, after the level's own `connect_all`, distractors in every
 * other room and the agent outside the locked one. The draws stay in minigrid's order.
 */
import type { Room, RoomGrid } from './roomgrid.ts';
import type { WorldObj } from './world.ts';

export interface LockedRoom {
  readonly door: WorldObj;
  readonly room: Room;
  /** Column and row of the locked room. */
  readonly i: number;
  readonly j: number;
}

/**
 * A locked door on a random room and its key in another room. minigrid compares the room indices
 * with `is`, always false for numpy integers, so there the key may land in the locked room; we
 * follow the comments' intent unless `g.minigridExact`.
 */
export function addLockedDoorAndKey(g: RoomGrid): LockedRoom {
  const i = g.rng.range(0, g.numCols);
  const j = g.rng.range(0, g.numRows);
  const door = g.addDoor(i, j, undefined, undefined, true);
  const room = g.getRoom(i, j);
  for (;;) {
    const ik = g.rng.range(0, g.numCols);
    const jk = g.rng.range(0, g.numRows);
    if (ik === i && jk === j && !g.minigridExact) continue;
    g.addObject(ik, jk, 'key', door.color);
    break;
  }
  return { door, room, i, j };
}

/** `n` distractors in every room but the locked one (all rooms in exact mode, as minigrid), then the agent outside it. */
export function fillAroundLockedRoom(g: RoomGrid, locked: LockedRoom, n: number): void {
  for (let i = 0; i < g.numCols; i++) {
    for (let j = 0; j < g.numRows; j++) if (i !== locked.i || j !== locked.j || g.minigridExact) g.addDistractors(i, j, n, false);
  }
  do g.placeAgent();
  while (g.roomFromPos(g.world.agentX, g.world.agentY) === locked.room);
}
