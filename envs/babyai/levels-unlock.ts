/**
 * The Unlock levels of AgentGym's 40 (minigrid/envs/babyai/unlock.py): Unlock,
 * UnlockLocalDist, KeyInBox, UnlockPickupDist, BlockedUnlockPickup, UnlockToUnlock.
 */
import { OpenInstr, PickupInstr } from './instructions.ts';
import { ObjDesc } from './objdesc.ts';
import { COLOR_NAMES, type WorldObj } from './world.ts';
import type { LevelSpec } from './level.ts';
import { addLockedDoorAndKey, fillAroundLockedRoom } from './locked-room.ts';

const openThe = (door: WorldObj) => new OpenInstr(new ObjDesc('door', door.color));

export const UNLOCK_LEVELS: readonly LevelSpec[] = [
  {
    // A locked door somewhere in the maze, its key in another room (locked-room.ts, shared with
    // GoToImpUnlock).
    name: 'Unlock', family: 'Unlock', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      const locked = addLockedDoorAndKey(g);
      // Half the time the locked door is the only door of its colour.
      if (g.rng.bool()) g.connectAll(undefined, COLOR_NAMES.filter((c) => c !== locked.door.color));
      else g.connectAll();
      fillAroundLockedRoom(g, locked, 3);
      g.checkObjsReachable();
      return openThe(locked.door);
    },
  },
  {
    // UnlockLocal(distractors=True): the locked door and its key in the agent's room.
    name: 'UnlockLocalDist', family: 'Unlock', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      const door = g.addDoor(1, 1, undefined, undefined, true);
      g.addObject(1, 1, 'key', door.color);
      g.addDistractors(1, 1, 3);
      g.placeAgent(1, 1);
      return new OpenInstr(new ObjDesc('door'));
    },
  },
  {
    // The key is inside a box. Opening a box is a primitive toggle facing it, which no AgentGym
    // macro action performs, so through AgentGym's text actions this level cannot be solved.
    name: 'KeyInBox', family: 'Unlock', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      const door = g.addDoor(1, 1, undefined, undefined, true);
      const key = g.world.addObj('key', door.color);
      const box = g.world.addObj('box', g.rng.pick(COLOR_NAMES));
      box.contains = key.id;
      g.placeInRoom(1, 1, box);
      g.placeAgent(1, 1);
      return new OpenInstr(new ObjDesc('door'));
    },
  },
  {
    // UnlockPickup(distractors=True). Its `if max is None` tests the builtin `max`, so max_steps
    // is never fixed and comes out as 1 * 6^2 * 1 * 2 = 72.
    name: 'UnlockPickupDist', family: 'Unlock', roomSize: 6, numRows: 1, numCols: 2,
    gen: (g) => {
      const obj = g.addObject(1, 0, 'box');
      const door = g.addDoor(0, 0, 0, undefined, true);
      g.addObject(0, 0, 'key', door.color);
      g.addDistractors(undefined, undefined, 4);
      g.placeAgent(0, 0);
      return new PickupInstr(new ObjDesc(obj.type, obj.color));
    },
  },
  {
    // A ball blocks the locked door from the agent's side.
    name: 'BlockedUnlockPickup', family: 'Unlock', roomSize: 6, numRows: 1, numCols: 2, maxSteps: 16 * 6 ** 2,
    gen: (g) => {
      const obj = g.addObject(1, 0, 'box');
      const door = g.addDoor(0, 0, 0, undefined, true);
      const ball = g.world.addObj('ball', g.rng.pick(COLOR_NAMES));
      g.world.set(door.x - 1, door.y, ball.id);
      g.addObject(0, 0, 'key', door.color);
      g.placeAgent(0, 0);
      return new PickupInstr(new ObjDesc(obj.type));
    },
  },
  {
    // Key B opens the door to the right room, where key A waits for the door to the left room.
    name: 'UnlockToUnlock', family: 'Unlock', roomSize: 6, numRows: 1, numCols: 3, maxSteps: 30 * 6 ** 2,
    gen: (g) => {
      const [a, b] = g.randSubset(COLOR_NAMES, 2) as [typeof COLOR_NAMES[number], typeof COLOR_NAMES[number]];
      g.addDoor(0, 0, 0, a, true);
      g.addObject(2, 0, 'key', a);
      g.addDoor(1, 0, 0, b, true);
      g.addObject(1, 0, 'key', b);
      const obj = g.addObject(0, 0, 'ball');
      g.placeAgent(1, 0);
      return new PickupInstr(new ObjDesc(obj.type));
    },
  },
];
