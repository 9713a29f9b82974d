/**
 * PutNextLocalS6N4, PutNextS7N4Carrying (minigrid/envs/babyai/putnext.py), KeyCorridorS6R3 and
 * MoveTwoAcrossS8N9 (other.py) of AgentGym's 40.
 */
import { PickupInstr, PutNextInstr, SeqInstr, type Instr } from './instructions.ts';
import { ObjDesc } from './objdesc.ts';
import type { RoomGrid } from './roomgrid.ts';
import type { LevelSpec } from './level.ts';
import type { WorldObj } from './world.ts';

const desc = (o: WorldObj) => new ObjDesc(o.type, o.color);
const putNext = (a: WorldObj, b: WorldObj) => new PutNextInstr(desc(a), desc(b));

/** Two rooms side by side with `n` objects each and the wall between them removed. */
function twoRooms(g: RoomGrid, n: number): [WorldObj[], WorldObj[]] {
  g.placeAgent(0, 0);
  const left = g.addDistractors(0, 0, n);
  const right = g.addDistractors(1, 0, n);
  g.removeWall(0, 0, 0);
  return [left, right];
}

export const PUTNEXT_LEVELS: readonly LevelSpec[] = [
  {
    name: 'PutNextLocalS6N4', family: 'PutNext', roomSize: 6, numRows: 1, numCols: 1,
    gen: (g) => {
      g.placeAgent();
      const objs = g.addDistractors(undefined, undefined, 4, true);
      g.checkObjsReachable();
      const [a, b] = g.randSubset(objs, 2) as [WorldObj, WorldObj];
      return putNext(a, b);
    },
  },
  {
    // PutNext(room_size=7, objs_per_room=4, start_carrying=True): the agent starts holding the
    // object to move (see LevelSpec.startCarrying for what the first view shows).
    name: 'PutNextS7N4Carrying', family: 'PutNext', roomSize: 7, numRows: 1, numCols: 2, maxSteps: 8 * 7 ** 2,
    gen: (g) => {
      const [left, right] = twoRooms(g, 4);
      let a = g.rng.pick(left);
      let b = g.rng.pick(right);
      if (g.rng.bool()) [a, b] = [b, a];
      return putNext(a, b);
    },
    startCarrying: (instrs: Instr) => (instrs as PutNextInstr).descMove.objSet[0] as number,
  },
  {
    // A ball behind a locked door off a corridor of three rooms; the key is in a room on the left.
    name: 'KeyCorridorS6R3', family: 'KeyCorridor', roomSize: 6, numRows: 3, numCols: 3, maxSteps: 30 * 6 ** 2,
    gen: (g) => {
      for (let j = 1; j < g.numRows; j++) g.removeWall(1, j, 3);
      const roomIdx = g.rng.range(0, g.numRows);
      const door = g.addDoor(2, roomIdx, 2, undefined, true);
      const obj = g.addObject(2, roomIdx, 'ball');
      g.addObject(0, g.rng.range(0, g.numRows), 'key', door.color);
      g.placeAgent(1, Math.floor(g.numRows / 2));
      g.connectAll();
      return new PickupInstr(new ObjDesc(obj.type));
    },
  },
  {
    // Two put-next-to tasks across two rooms of nine objects each, in order.
    name: 'MoveTwoAcrossS8N9', family: 'MoveTwoAcross', roomSize: 8, numRows: 1, numCols: 2, maxSteps: 16 * 8 ** 2,
    gen: (g) => {
      const [left, right] = twoRooms(g, 9);
      const [a, d] = g.randSubset(left, 2) as [WorldObj, WorldObj];
      const [b, c] = g.randSubset(right, 2) as [WorldObj, WorldObj];
      return new SeqInstr('before', putNext(a, b), putNext(c, d));
    },
  },
];
