/**
 * The oracle's estimate of the primitive steps a mission still needs, from full knowledge
 * of the world: a Dijkstra over (cell, direction) where closed doors cost a toggle, locked
 * doors need the matching key, and objects in the way cost an unblocking detour.
 */
import { GoToInstr, OpenInstr, PickupInstr, PutNextInstr, SeqInstr, type ActionInstr, type Instr } from './instructions.ts';
import type { Game } from './game.ts';
import { DIR_TO_VEC, EMPTY, WALL, type Color, type World } from './world.ts';

/** Extra steps charged for moving an object out of the way (pick up, turn, drop, turn back). */
const BLOCK_PENALTY = 6;
/** Steps charged for each mission part after the current one. */
const PART_COST = 15;
const UNREACHED = 0x3fffffff;
/** Dropping what the agent holds costs a turn, worth about this many steps. */
const DROP_COST = 3;
/** A locked door crossed while holding a key of another colour (see `stepCost`). */
const OTHER_KEY_DOOR = 20;

/**
 * Shortest primitive-step costs from the agent to every (cell, direction, key layer). Layer
 * 0 carries no useful key; layer k carries a key for the locked doors of `colors[k]`, got by
 * picking one up on the way. This sees the detour for a key that a locked door asks for.
 */
export class NavField {
  private readonly dist: Int32Array;
  private readonly layers: number;
  private readonly colors: (Color | null)[];

  constructor(readonly world: World) {
    const locked = new Set<Color>();
    for (const o of world.objs) if (o.type === 'door' && o.isLocked && o.x >= 0) locked.add(o.color);
    this.colors = [null, ...locked];
    this.layers = this.colors.length;
    this.dist = navigate(world, this.colors);
  }

  /**
   * Steps until the agent stands next to one of `cells`, facing it; with `keyColor`, only
   * while holding a key of that color (to unlock a door).
   */
  faceCost(cells: readonly (readonly [number, number])[], keyColor?: Color): number {
    const w = this.world;
    const only = keyColor === undefined ? -1 : this.colors.indexOf(keyColor);
    if (keyColor !== undefined && only < 0) return Infinity;
    const size = w.width * w.height * 4;
    let best = Infinity;
    for (const [tx, ty] of cells) {
      for (let d = 0; d < 4; d++) {
        const [dx, dy] = DIR_TO_VEC[d] as readonly [number, number];
        const [x, y] = [tx - dx, ty - dy];
        if (x < 0 || y < 0 || x >= w.width || y >= w.height) continue;
        for (let layer = Math.max(only, 0); layer < (only < 0 ? this.layers : only + 1); layer++) {
          const cost = this.dist[layer * size + (y * w.width + x) * 4 + d] as number;
          if (cost < best) best = cost;
        }
      }
    }
    return best >= UNREACHED ? Infinity : best;
  }
}

/** Cost of stepping into a cell for an agent holding a key of `keyColor` (or none). */
function stepCost(w: World, code: number, keyColor: Color | null): number {
  if (code === EMPTY) return 1;
  if (code === WALL) return -1;
  const o = w.obj(code);
  if (o.type !== 'door') return 1 + BLOCK_PENALTY;
  if (o.isOpen) return 1;
  if (!o.isLocked) return 2;
  if (keyColor === o.color) return 2;
  // Holding another key: this door was likely unlocked on the way to that key (UnlockToUnlock),
  // which the layers cannot record; charge a detour rather than rule the route out.
  return keyColor === null ? -1 : OTHER_KEY_DOOR;
}

/** Dijkstra with a bucket queue (edge costs are small integers). */
function navigate(w: World, colors: readonly (Color | null)[]): Int32Array {
  const cells = w.width * w.height;
  const size = cells * 4;
  const enter = new Int32Array(cells * colors.length);
  colors.forEach((color, layer) => {
    for (let c = 0; c < cells; c++) enter[layer * cells + c] = stepCost(w, w.cells[c] as number, color);
  });
  const carried = w.carrying >= 0 ? w.obj(w.carrying) : null;
  const startLayer = carried?.type === 'key' ? Math.max(0, colors.indexOf(carried.color)) : 0;
  // Picking up a key: one step, plus dropping what the agent holds.
  const pickCost = 1 + (carried ? DROP_COST : 0);
  const keyLayerOf = new Int8Array(cells);
  for (const o of w.objs) if (o.type === 'key' && o.x >= 0) keyLayerOf[o.y * w.width + o.x] = Math.max(0, colors.indexOf(o.color));
  const dist = new Int32Array(size * colors.length).fill(UNREACHED);
  const start = startLayer * size + (w.agentY * w.width + w.agentX) * 4 + w.agentDir;
  dist[start] = 0;
  const buckets: number[][] = [[start]];
  const step = [1, w.width, -1, -w.width];
  const relax = (t: number, c: number) => {
    if (c < (dist[t] as number)) {
      dist[t] = c;
      (buckets[c] ??= []).push(t);
    }
  };
  for (let c = 0; c < buckets.length; c++) {
    const bucket = buckets[c];
    if (!bucket) continue;
    for (let k = 0; k < bucket.length; k++) {
      const s = bucket[k] as number;
      if (dist[s] !== c) continue;
      const layer = Math.floor(s / size);
      const base = layer * size;
      const d = s & 3;
      const cell = (s - base) >> 2;
      relax(base + ((cell << 2) | ((d + 1) & 3)), c + 1);
      relax(base + ((cell << 2) | ((d + 3) & 3)), c + 1);
      // The outer walls keep `next` inside the grid.
      const next = cell + (step[d] as number);
      const cost = enter[layer * cells + next] as number;
      if (cost >= 0) relax(base + ((next << 2) | d), c + cost);
      // Picking up a key of another colour: drop the one held (its layer) first.
      const keyLayer = keyLayerOf[next] as number;
      if (keyLayer > 0 && keyLayer !== layer) relax(keyLayer * size + (cell << 2) + d, c + pickCost + (layer > 0 ? DROP_COST : 0));
    }
  }
  return dist;
}

/** Mission parts that can be worked on now, and how many parts are left in all. */
function pending(instr: Instr): { now: ActionInstr[]; left: number } {
  if (!(instr instanceof SeqInstr)) return { now: [instr], left: 1 };
  const a = instr.aDone === 'success' ? null : pending(instr.a);
  const b = instr.bDone === 'success' ? null : pending(instr.b);
  const left = (a?.left ?? 0) + (b?.left ?? 0);
  if (instr.kind === 'and') return { now: [...(a?.now ?? []), ...(b?.now ?? [])], left };
  const first = instr.kind === 'before' ? a : b;
  const second = instr.kind === 'before' ? b : a;
  return { now: (first ?? second)?.now ?? [], left };
}

const onGrid = (w: World, ids: readonly number[]) =>
  ids.map((id) => w.obj(id)).filter((o) => o.x >= 0).map((o) => [o.x, o.y] as const);

function partCost(game: Game, instr: ActionInstr, field: NavField): number {
  const w = game.world;
  const carrying = w.carrying;
  const dropFirst = carrying >= 0 ? DROP_COST : 0;
  if (instr instanceof GoToInstr) return field.faceCost(instr.desc.objPoss);
  if (instr instanceof PickupInstr) {
    if (instr.desc.objSet.includes(carrying)) return 2;
    return dropFirst + field.faceCost(onGrid(w, instr.desc.objSet)) + 1;
  }
  if (instr instanceof OpenInstr) {
    let best = Infinity;
    for (const id of instr.desc.objSet) {
      const door = w.obj(id);
      if (door.isOpen) continue;
      const cost = door.isLocked ? field.faceCost([[door.x, door.y]], door.color) : field.faceCost([[door.x, door.y]]);
      best = Math.min(best, cost + 1);
    }
    return best;
  }
  return putNextCost(game, instr, field);
}

function putNextCost(game: Game, instr: PutNextInstr, field: NavField): number {
  const w = game.world;
  const fixed = instr.descFixed.objPoss;
  if (instr.descMove.objSet.includes(w.carrying)) {
    return field.faceCost(adjacentCells(w, fixed)) + 1;
  }
  const dropFirst = w.carrying >= 0 ? DROP_COST : 0;
  const toFixed = cellDistances(w, adjacentCells(w, fixed));
  let best = Infinity;
  for (const id of instr.descMove.objSet) {
    const o = w.obj(id);
    if (o.x < 0) continue;
    let carry = Infinity;
    for (const [x, y] of adjacentCells(w, [[o.x, o.y]])) carry = Math.min(carry, toFixed[y * w.width + x] as number);
    best = Math.min(best, field.faceCost([[o.x, o.y]]) + 1 + carry + 3);
  }
  if (best === Infinity) best = throughLockedDoor(game, instr, field);
  return dropFirst + best;
}

/**
 * When no carrying route avoids locked doors (BossLevel: "put the box next to the key" with
 * the key in the locked room), unlock one first: fetch its key and face it (the field's key
 * layers), then walk from the door to the object and carry it with that door open.
 */
function throughLockedDoor(game: Game, instr: PutNextInstr, field: NavField): number {
  const w = game.world;
  let best = Infinity;
  for (const door of w.objs) {
    if (door.type !== 'door' || !door.isLocked || door.x < 0) continue;
    const unlock = field.faceCost([[door.x, door.y]], door.color) + 1;
    if (unlock === Infinity) continue;
    const fromDoor = cellDistances(w, [[door.x, door.y]], door.id);
    const toFixed = cellDistances(w, adjacentCells(w, instr.descFixed.objPoss), door.id);
    for (const id of instr.descMove.objSet) {
      const o = w.obj(id);
      if (o.x < 0) continue;
      for (const [x, y] of adjacentCells(w, [[o.x, o.y]])) {
        const i = y * w.width + x;
        best = Math.min(best, unlock + DROP_COST + (fromDoor[i] as number) + 1 + (toFixed[i] as number) + 3);
      }
    }
  }
  return best;
}

function adjacentCells(w: World, cells: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  for (const [x, y] of cells) for (const [dx, dy] of DIR_TO_VEC) if (w.get(x + dx, y + dy) === EMPTY) out.push([x + dx, y + dy]);
  return out;
}

/**
 * Walking distance (no turns) from the nearest source cell to every cell, for carrying
 * estimates; locked doors are walls except `unlocked`.
 */
function cellDistances(w: World, sources: readonly (readonly [number, number])[], unlocked = -1): Float64Array {
  const dist = new Float64Array(w.width * w.height).fill(Infinity);
  const buckets: number[][] = [[]];
  for (const [x, y] of sources) {
    dist[y * w.width + x] = 0;
    (buckets[0] as number[]).push(y * w.width + x);
  }
  const step = [1, w.width, -1, -w.width];
  for (let c = 0; c < buckets.length; c++) {
    for (const cell of buckets[c] ?? []) {
      if (dist[cell] !== c) continue;
      for (const delta of step) {
        const next = cell + delta;
        const code = w.cells[next] as number;
        const cost = code === unlocked ? 1 : stepCost(w, code, null);
        if (cost < 0 || c + cost >= (dist[next] as number)) continue;
        dist[next] = c + cost;
        (buckets[c + cost] ??= []).push(next);
      }
    }
  }
  return dist;
}

/**
 * An "open" part not yet due whose doors are all open already: the macro actions cannot close
 * a door, so it can never be done (SynthSeq's "…, then open the grey door" after walking
 * through that door).
 */
function openedTooEarly(instr: Instr, w: World): boolean {
  if (instr instanceof SeqInstr) {
    return (instr.aDone !== 'success' && openedTooEarly(instr.a, w)) || (instr.bDone !== 'success' && openedTooEarly(instr.b, w));
  }
  return instr instanceof OpenInstr && instr.desc.objSet.every((id) => w.obj(id).isOpen);
}

/** Estimated primitive steps to finish the mission; Infinity when it cannot be finished. */
export function estimateCost(game: Game): number {
  if (game.success) return 0;
  if (openedTooEarly(game.instrs, game.world)) return Infinity;
  const { now, left } = pending(game.instrs);
  const field = new NavField(game.world);
  let best = Infinity;
  for (const part of now) best = Math.min(best, partCost(game, part, field));
  return best + PART_COST * (left - 1);
}
