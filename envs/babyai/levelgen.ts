/**
 * minigrid's `LevelGen` (minigrid/envs/babyai/core/levelgen.py): random instructions in the
 * baby language over a maze of rooms, optionally with a locked room and location words.
 * Used by GoToSeq, PickupLoc and SynthLoc.
 */
import { COLOR_NAMES, type Color, type ObjType } from './world.ts';
import { GenerationStuck, posInside, type Room, type RoomGrid } from './roomgrid.ts';
import { LOC_NAMES, ObjDesc, type Loc } from './objdesc.ts';
import { GoToInstr, OpenInstr, PickupInstr, PutNextInstr, SeqInstr, type Instr } from './instructions.ts';

export type ActionKind = 'goto' | 'pickup' | 'open' | 'putnext';
export type InstrKind = 'action' | 'and' | 'seq';

export const OBJ_TYPES: readonly ObjType[] = ['box', 'ball', 'key', 'door'];
export const OBJ_TYPES_NOT_DOOR: readonly ObjType[] = ['box', 'ball', 'key'];

export interface LevelGenOptions {
  readonly numDists: number;
  readonly lockedRoomProb: number;
  readonly locations: boolean;
  readonly unblocking: boolean;
  readonly implicitUnlock: boolean;
  readonly actionKinds: readonly ActionKind[];
  readonly instrKinds: readonly InstrKind[];
}

export const LEVELGEN_DEFAULTS: LevelGenOptions = {
  numDists: 18,
  lockedRoomProb: 0.5,
  locations: true,
  unblocking: true,
  implicitUnlock: true,
  actionKinds: ['goto', 'pickup', 'open', 'putnext'],
  instrKinds: ['action', 'and', 'seq'],
};

/** `LevelGen.gen_mission`. */
export function levelGenMission(g: RoomGrid, opts: LevelGenOptions): Instr {
  const rng = g.rng;
  if (rng.next() < opts.lockedRoomProb) g.levelGenLockedRoom = addLockedRoom(g);
  const lockedRoom = g.levelGenLockedRoom;
  g.connectAll();
  g.addDistractors(undefined, undefined, opts.numDists, false);
  do g.placeAgent();
  while (g.roomFromPos(g.world.agentX, g.world.agentY) === lockedRoom);
  if (!opts.unblocking) g.checkObjsReachable();
  return randInstr(g, opts, lockedRoom, opts.instrKinds);
}

function addLockedRoom(g: RoomGrid): Room {
  const rng = g.rng;
  let room: Room;
  let color: Color;
  for (;;) {
    const i = rng.range(0, g.numCols);
    const j = rng.range(0, g.numRows);
    const doorIdx = rng.range(0, 4);
    room = g.getRoom(i, j);
    if (room.neighbors[doorIdx] === null) continue;
    color = g.addDoor(i, j, doorIdx, undefined, true).color;
    break;
  }
  for (;;) {
    const i = rng.range(0, g.numCols);
    const j = rng.range(0, g.numRows);
    if (g.getRoom(i, j) === room) continue;
    g.addObject(i, j, 'key', color);
    return room;
  }
}

function randObj(
  g: RoomGrid,
  opts: LevelGenOptions,
  lockedRoom: Room | null,
  types: readonly ObjType[] = OBJ_TYPES,
  maxTries = 100,
): ObjDesc {
  const rng = g.rng;
  for (let tries = 0; ; tries++) {
    if (tries > maxTries) throw new GenerationStuck('failed to find suitable object');
    const color = rng.pick<Color | null>([null, ...COLOR_NAMES]);
    const type = rng.pick(types);
    let loc: Loc | null = null;
    if (opts.locations && rng.bool()) loc = rng.pick(LOC_NAMES);
    const desc = new ObjDesc(type, color, loc);
    desc.findMatchingObjs(g);
    if (desc.objSet.length === 0) continue;
    if (!opts.implicitUnlock && lockedRoom) {
      const room = lockedRoom;
      if (desc.objPoss.every(([x, y]) => posInside(room, x, y))) continue;
    }
    return desc;
  }
}

function randInstr(g: RoomGrid, opts: LevelGenOptions, locked: Room | null, instrKinds: readonly InstrKind[]): Instr {
  const rng = g.rng;
  const kind = rng.pick(instrKinds);
  if (kind === 'action') {
    const action = rng.pick(opts.actionKinds);
    if (action === 'goto') return new GoToInstr(randObj(g, opts, locked));
    if (action === 'pickup') return new PickupInstr(randObj(g, opts, locked, OBJ_TYPES_NOT_DOOR));
    if (action === 'open') return new OpenInstr(randObj(g, opts, locked, ['door']));
    const move = randObj(g, opts, locked, OBJ_TYPES_NOT_DOOR);
    return new PutNextInstr(move, randObj(g, opts, locked));
  }
  if (kind === 'and') {
    const a = randInstr(g, opts, locked, ['action']);
    return new SeqInstr('and', a, randInstr(g, opts, locked, ['action']));
  }
  const a = randInstr(g, opts, locked, ['action', 'and']);
  const b = randInstr(g, opts, locked, ['action', 'and']);
  return new SeqInstr(rng.pick(['before', 'after'] as const), a, b);
}
