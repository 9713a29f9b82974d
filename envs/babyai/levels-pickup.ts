/** PickupDistDebug and PickupAbove of AgentGym's 40 (minigrid/envs/babyai/pickup.py). */
import { PickupInstr } from './instructions.ts';
import { ObjDesc } from './objdesc.ts';
import type { LevelSpec } from './level.ts';

export const PICKUP_MORE_LEVELS: readonly LevelSpec[] = [
  {
    // PickupDist(debug=True): the object by type, colour or both; picking up another one fails.
    name: 'PickupDistDebug', family: 'Pickup', roomSize: 7, numRows: 1, numCols: 1,
    gen: (g) => {
      const objs = g.addDistractors(undefined, undefined, 5);
      g.placeAgent(0, 0);
      const obj = g.rng.pick(objs);
      const by = g.rng.pick(['type', 'color', 'both'] as const);
      return new PickupInstr(new ObjDesc(by === 'color' ? null : obj.type, by === 'type' ? null : obj.color), true);
    },
  },
  {
    // The object waits in the room above the agent's; the two rooms share a door.
    name: 'PickupAbove', family: 'Pickup', roomSize: 6, numRows: 3, numCols: 3, maxSteps: 8 * 6 ** 2,
    gen: (g) => {
      const obj = g.addObject(1, 0);
      g.addDoor(1, 1, 3, undefined, false);
      g.placeAgent(1, 1);
      g.connectAll();
      return new PickupInstr(new ObjDesc(obj.type, obj.color));
    },
  },
];
