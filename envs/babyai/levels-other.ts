/**
 * The other levels of AgentGym's BabyAI test mix: Pickup, UnblockPickup, PickupLoc
 * (pickup.py), ActionObjDoor, FindObjS7, OneRoomS20 (other.py) and SynthLoc (synth.py).
 */
import { GoToInstr, OpenInstr, PickupInstr } from './instructions.ts';
import { ObjDesc } from './objdesc.ts';
import { RejectSampling } from './roomgrid.ts';
import { LEVELGEN_DEFAULTS, levelGenMission } from './levelgen.ts';
import type { LevelSpec } from './level.ts';
import type { WorldObj } from './world.ts';

const pickUp = (obj: WorldObj) => new PickupInstr(new ObjDesc(obj.type, obj.color));

export const OTHER_LEVELS: readonly LevelSpec[] = [
  {
    name: 'Pickup', family: 'Pickup', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      g.placeAgent();
      g.connectAll();
      const objs = g.addDistractors(undefined, undefined, 18, false);
      g.checkObjsReachable();
      return pickUp(g.rng.pick(objs));
    },
  },
  {
    name: 'UnblockPickup', family: 'Pickup', roomSize: 8, numRows: 3, numCols: 3,
    gen: (g) => {
      g.placeAgent();
      g.connectAll();
      const objs = g.addDistractors(undefined, undefined, 20, false);
      // At least one object must need unblocking (the target usually does not).
      if (g.checkObjsReachable(false)) throw new RejectSampling('all objects reachable');
      return pickUp(g.rng.pick(objs));
    },
  },
  {
    name: 'PickupLoc', family: 'Pickup', roomSize: 8, numRows: 1, numCols: 1,
    gen: (g) =>
      levelGenMission(g, {
        ...LEVELGEN_DEFAULTS, numDists: 8, actionKinds: ['pickup'], instrKinds: ['action'],
        lockedRoomProb: 0, locations: true, unblocking: false,
      }),
  },
  {
    name: 'ActionObjDoor', family: 'ActionObjDoor', roomSize: 7, numRows: 3, numCols: 3,
    gen: (g) => {
      const objs = g.addDistractors(1, 1, 5);
      for (let k = 0; k < 4; k++) objs.push(g.addDoor(1, 1, undefined, undefined, false));
      g.placeAgent(1, 1);
      const obj = g.rng.pick(objs);
      const desc = new ObjDesc(obj.type, obj.color);
      if (obj.type === 'door') return g.rng.bool() ? new GoToInstr(desc) : new OpenInstr(desc);
      return g.rng.bool() ? new GoToInstr(desc) : new PickupInstr(desc);
    },
  },
  {
    // FindObjS5 with room_size 7: one object in a random room, the agent in the middle;
    // FindObjS5 fixes max_steps at 20 * room_size^2.
    name: 'FindObjS7', family: 'FindObjS7', roomSize: 7, numRows: 3, numCols: 3, maxSteps: 20 * 7 ** 2,
    gen: (g) => {
      const i = g.rng.range(0, g.numRows);
      const j = g.rng.range(0, g.numCols);
      const obj = g.addObject(i, j);
      g.placeAgent(1, 1);
      g.connectAll();
      return new PickupInstr(new ObjDesc(obj.type));
    },
  },
  {
    // OneRoomS8 with room_size 20: pick up the only ball of a large empty room.
    name: 'OneRoomS20', family: 'OneRoomS20', roomSize: 20, numRows: 1, numCols: 1,
    gen: (g) => {
      const obj = g.addObject(0, 0, 'ball');
      g.placeAgent();
      return new PickupInstr(new ObjDesc(obj.type));
    },
  },
  {
    name: 'SynthLoc', family: 'SynthLoc', roomSize: 8, numRows: 3, numCols: 3, unblocking: true,
    gen: (g) =>
      levelGenMission(g, {
        ...LEVELGEN_DEFAULTS, instrKinds: ['action'], locations: true, unblocking: true, implicitUnlock: false,
      }),
  },
];
