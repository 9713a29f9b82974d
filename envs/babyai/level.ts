/**
 * A BabyAI level: how to generate its room grid and mission, and the generation loop of
 * minigrid's `RoomGridLevel` (retry on rejection, validate the instructions, surface form,
 * `max_steps = num_navs * room_size^2 * rows * cols`).
 */
import { Rng } from '../rng.ts';
import { GenerationStuck, RejectSampling, RoomGrid } from './roomgrid.ts';
import { numNavsNeeded, PutNextInstr, SeqInstr, type Instr } from './instructions.ts';
import { EMPTY, type World } from './world.ts';

/**
 * The level's family: the six of the paper's BabyAI test mix, then the minigrid files the
 * other AgentGym levels come from (open.py, putnext.py, unlock.py, other.py, synth.py).
 */
export type Family =
  | 'GoTo' | 'Pickup' | 'ActionObjDoor' | 'FindObjS7' | 'OneRoomS20' | 'SynthLoc'
  | 'Open' | 'PutNext' | 'Unlock' | 'KeyCorridor' | 'MoveTwoAcross' | 'Synth' | 'Boss';

export interface LevelSpec {
  /** minigrid's level name without `BabyAI-` and `-v0`, e.g. `GoToRedBall`. */
  readonly name: string;
  readonly family: Family;
  readonly roomSize: number;
  readonly numRows: number;
  readonly numCols: number;
  /** LevelGen levels with `unblocking` reject missions about keys of locked doors. */
  readonly unblocking?: boolean;
  /** A fixed step limit (minigrid's `max_steps` argument); else `num_navs * room_size^2 * rows * cols`. */
  readonly maxSteps?: number;
  /**
   * PutNextS7N4Carrying: the object the agent holds from the start. minigrid takes it off the
   * grid after `reset` has built the observation, so the first view still shows it in place.
   */
  readonly startCarrying?: (instrs: Instr) => number;
  /** Places objects and the agent and returns the mission; may throw `RejectSampling`. */
  gen(g: RoomGrid): Instr;
}

export interface GeneratedLevel {
  readonly world: World;
  readonly instrs: Instr;
  readonly mission: string;
  readonly roomSize: number;
  readonly maxSteps: number;
  /** The world the first observation shows, when it is not `world` (see `startCarrying`). */
  readonly shownWorld?: World;
}

const MAX_ATTEMPTS = 10_000;

export interface GenerateOptions {
  /** Default: our own stream for the level and seed. */
  readonly rng?: Rng;
  /**
   * Also reproduce what minigrid does by accident (RoomGrid.minigridExact). With a
   * `NumpyRng(seed)` (envs/numpy-random.ts) the level is then the grid AgentGym's server builds for
   * that seed (experiments/babyai-layout-parity/).
   */
  readonly minigridExact?: boolean;
}

export function generateLevel(spec: LevelSpec, seed: number, options: GenerateOptions = {}): GeneratedLevel {
  const rng = options.rng ?? Rng.fromString(`babyai/${spec.name}/${seed}`);
  const g = new RoomGrid(rng, spec.roomSize, spec.numRows, spec.numCols, options.minigridExact ?? false);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    g.build();
    let instrs: Instr;
    try {
      instrs = spec.gen(g);
      validateInstrs(g, instrs, spec.unblocking === true);
    } catch (error) {
      if (error instanceof RejectSampling || error instanceof GenerationStuck) continue;
      throw error;
    }
    const mission = instrs.surface(g);
    instrs.resetVerifier(g);
    const maxSteps = spec.maxSteps ?? numNavsNeeded(instrs) * spec.roomSize ** 2 * spec.numRows * spec.numCols;
    if (!spec.startCarrying) return { world: g.world, instrs, mission, roomSize: spec.roomSize, maxSteps };
    const shownWorld = g.world.clone();
    const held = g.world.obj(spec.startCarrying(instrs));
    g.world.set(held.x, held.y, EMPTY);
    [held.x, held.y] = [-1, -1];
    g.world.carrying = held.id;
    return { world: g.world, instrs, mission, roomSize: spec.roomSize, maxSteps, shownWorld };
  }
  throw new Error(`could not generate ${spec.name}/${seed}`);
}

/** `RoomGridLevel.validate_instrs`. */
function validateInstrs(g: RoomGrid, instr: Instr, unblocking: boolean): void {
  if (instr instanceof SeqInstr) {
    validateInstrs(g, instr.a, unblocking);
    validateInstrs(g, instr.b, unblocking);
    return;
  }
  if (instr instanceof PutNextInstr) {
    instr.resetVerifier(g);
    const move = instr.descMove.objSet;
    if (move.some((id) => instr.descFixed.objSet.includes(id))) {
      throw new RejectSampling('there are objects that match both lhs and rhs of PutNext');
    }
    if (instr.objsNext(g)) throw new RejectSampling('objs already next to each other');
  }
  if (!unblocking) return;
  const lockedColors = new Set(g.world.objs.filter((o) => o.type === 'door' && o.isLocked).map((o) => o.color));
  const descs = instr instanceof PutNextInstr ? [instr.descMove, instr.descFixed] : [instr.desc];
  for (const desc of descs) {
    if (desc.type === 'key' && desc.color !== null && lockedColors.has(desc.color)) {
      throw new RejectSampling('cannot do anything with/to a key that can be used to open a door');
    }
  }
}
