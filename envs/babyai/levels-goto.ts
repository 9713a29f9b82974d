/** The GoTo levels of AgentGym's BabyAI list (minigrid/envs/babyai/goto.py). */
import { GoToInstr } from './instructions.ts';
import { ObjDesc } from './objdesc.ts';
import { RejectSampling, type RoomGrid } from './roomgrid.ts';
import { LEVELGEN_DEFAULTS, levelGenMission } from './levelgen.ts';
import type { LevelSpec } from './level.ts';
import { addLockedDoorAndKey, fillAroundLockedRoom } from './locked-room.ts';
import type { WorldObj } from './world.ts';

const goTo = (obj: WorldObj) => new GoToInstr(new ObjDesc(obj.type, obj.color));

function redBall(g: RoomGrid, numDists: number, grey: boolean) {
  g.placeAgent();
  const obj = g.addObject(0, 0, 'ball', 'red');
  const dists = g.addDistractors(undefined, undefined, numDists, false);
  if (grey) for (const d of dists) d.color = 'grey';
  g.checkObjsReachable();
  return goTo(obj);
}

function local(g: RoomGrid, numDists: number) {
  g.placeAgent();
  const objs = g.addDistractors(undefined, undefined, numDists, false);
  g.checkObjsReachable();
  return goTo(g.rng.pick(objs));
}

const single = { family: 'GoTo', numRows: 1, numCols: 1 } as const;
const maze = { family: 'GoTo', numRows: 3, numCols: 3 } as const;

export const GOTO_LEVELS: readonly LevelSpec[] = [
  { name: 'GoToRedBallGrey', ...single, roomSize: 8, gen: (g) => redBall(g, 7, true) },
  { name: 'GoToRedBall', ...single, roomSize: 8, gen: (g) => redBall(g, 7, false) },
  { name: 'GoToRedBallNoDists', ...single, roomSize: 8, gen: (g) => redBall(g, 0, false) },
  {
    name: 'GoToObjS6', ...single, roomSize: 6,
    gen: (g) => {
      g.placeAgent();
      return goTo(g.addDistractors(undefined, undefined, 1)[0] as WorldObj);
    },
  },
  { name: 'GoToLocalS8N7', ...single, roomSize: 8, gen: (g) => local(g, 7) },
  {
    // GoTo with one object, closed doors, rooms of size 7.
    name: 'GoToObjMazeS7', ...maze, roomSize: 7,
    gen: (g) => {
      g.placeAgent();
      g.connectAll();
      const objs = g.addDistractors(undefined, undefined, 1, false);
      g.checkObjsReachable();
      return goTo(g.rng.pick(objs));
    },
  },
  {
    // The target may be behind a locked door whose key lies in another room (locked-room.ts,
    // where minigrid's `is` comparison and what we do about it are described).
    name: 'GoToImpUnlock', ...maze, roomSize: 8,
    gen: (g) => {
      const locked = addLockedDoorAndKey(g);
      g.connectAll();
      fillAroundLockedRoom(g, locked, 2);
      g.checkObjsReachable();
      return goTo(g.addDistractors(locked.i, locked.j, 1, false)[0] as WorldObj);
    },
  },
  {
    name: 'GoToSeqS5R2', family: 'GoTo', roomSize: 5, numRows: 2, numCols: 2,
    gen: (g) =>
      levelGenMission(g, {
        ...LEVELGEN_DEFAULTS, numDists: 4, actionKinds: ['goto'], lockedRoomProb: 0, locations: false, unblocking: false,
      }),
  },
  {
    name: 'GoToRedBlueBall', ...single, roomSize: 8,
    gen: (g) => {
      g.placeAgent();
      const dists = g.addDistractors(undefined, undefined, 7, false);
      for (const d of dists) {
        if (d.type === 'ball' && (d.color === 'blue' || d.color === 'red')) {
          throw new RejectSampling('can only have one blue or red ball');
        }
      }
      const obj = g.addObject(0, 0, 'ball', g.rng.pick(['red', 'blue'] as const));
      g.checkObjsReachable();
      return goTo(obj);
    },
  },
  {
    name: 'GoToDoor', ...maze, roomSize: 7,
    gen: (g) => {
      const doors: WorldObj[] = [];
      for (let k = 0; k < 4; k++) doors.push(g.addDoor(1, 1));
      g.placeAgent(1, 1);
      return new GoToInstr(new ObjDesc('door', g.rng.pick(doors).color));
    },
  },
  {
    name: 'GoToObjDoor', ...maze, roomSize: 8,
    gen: (g) => {
      g.placeAgent(1, 1);
      const objs = g.addDistractors(1, 1, 8, false);
      for (let k = 0; k < 4; k++) objs.push(g.addDoor(1, 1));
      g.checkObjsReachable();
      return goTo(g.rng.pick(objs));
    },
  },
];
