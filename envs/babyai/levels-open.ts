/** The Open levels of AgentGym's 40 (minigrid/envs/babyai/open.py). */
import { COLOR_NAMES } from './world.ts';
import { OpenInstr, SeqInstr } from './instructions.ts';
import { LOC_NAMES, ObjDesc } from './objdesc.ts';
import type { LevelSpec } from './level.ts';
import type { WorldObj } from './world.ts';

const openDoor = (door: WorldObj, strict = false) => new OpenInstr(new ObjDesc('door', door.color), strict);

export const OPEN_LEVELS: readonly LevelSpec[] = [
  {
    // Open any door of a 3×3 maze full of distractors.
    name: 'Open', family: 'Open', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      g.placeAgent();
      g.connectAll();
      g.addDistractors(undefined, undefined, 18, false);
      g.checkObjsReachable();
      const doors: WorldObj[] = [];
      // minigrid walks the rooms column by column and lists each door once per side.
      for (let i = 0; i < g.numCols; i++) {
        for (let j = 0; j < g.numRows; j++) {
          for (const d of g.getRoom(i, j).doors) if (typeof d === 'number') doors.push(g.world.obj(d));
        }
      }
      return new OpenInstr(new ObjDesc('door', g.rng.pick(doors).color));
    },
  },
  {
    name: 'OpenRedDoor', family: 'Open', roomSize: 5, numRows: 1, numCols: 2,
    gen: (g) => {
      g.addDoor(0, 0, 0, 'red', false);
      g.placeAgent(0, 0);
      return new OpenInstr(new ObjDesc('door', 'red'));
    },
  },
  {
    // OpenDoor with select_by "loc": "open the door on your left" among four doors.
    name: 'OpenDoorLoc', family: 'Open', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      const colors = g.randSubset(COLOR_NAMES, 4);
      colors.forEach((color, i) => g.addDoor(1, 1, i, color, false));
      const desc = new ObjDesc('door', null, g.rng.pick(LOC_NAMES));
      g.placeAgent(1, 1);
      return new OpenInstr(desc);
    },
  },
  {
    // OpenTwoDoors(red, blue, strict): open the red door, then the blue one; opening blue first fails.
    name: 'OpenRedBlueDoorsDebug', family: 'Open', roomSize: 6, numRows: 3, numCols: 3, maxSteps: 20 * 6 ** 2,
    gen: (g) => {
      g.randSubset(COLOR_NAMES, 2); // drawn and unused when both colours are given
      const first = g.addDoor(1, 1, 2, 'red', false);
      const second = g.addDoor(1, 1, 0, 'blue', false);
      g.placeAgent(1, 1);
      return new SeqInstr('before', openDoor(first, true), openDoor(second));
    },
  },
  {
    // OpenDoorsOrder(num_doors=4, debug): open one door, or two in a stated order; any other door fails.
    name: 'OpenDoorsOrderN4Debug', family: 'Open', roomSize: 6, numRows: 3, numCols: 3, maxSteps: 20 * 6 ** 2,
    gen: (g) => {
      const colors = g.randSubset(COLOR_NAMES, 4);
      const doors = colors.map((color) => g.addDoor(1, 1, undefined, color, false));
      g.placeAgent(1, 1);
      const [d1, d2] = g.randSubset(doors, 2) as [WorldObj, WorldObj];
      const mode = g.rng.range(0, 3);
      if (mode === 0) return openDoor(d1, true);
      return new SeqInstr(mode === 1 ? 'before' : 'after', openDoor(d1, true), openDoor(d2, true));
    },
  },
];
