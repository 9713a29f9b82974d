/**
 * AgentGym's `find_path`: a breadth-first search over (position, direction) with the
 * primitive moves forward / left / right, inside the view's box, around the visible walls,
 * boxes, balls and keys (doors and unseen cells count as free). Reproduced with its quirks:
 * states are marked visited when popped, not when pushed, and a later push overwrites the
 * parent pointer, so the returned path is the one the original returns.
 *
 * The original runs one search per object. Every search starts from the same state in the same
 * box, so they pop states in the same order and differ only in where they stop; one search that
 * checks every goal at each pop returns the same paths. (A popped state's parent never changes
 * again, since pushes skip popped states, so a path read at its goal's first pop is final.)
 */
import { DIR_TO_VEC } from './world.ts';
import type { View } from './view.ts';

export interface PathGoal {
  readonly goalX: number;
  readonly goalY: number;
  /** True: end on the goal cell; false: end next to it, facing it. */
  readonly arrive: boolean;
}

export interface PathQuery extends PathGoal {
  readonly x: number;
  readonly y: number;
  readonly dir: number;
}

/** Cells the search may not enter, indexed like `View`'s box. */
export function blockedCells(view: View): Uint8Array {
  const w = view.xhi - view.xlo + 1;
  const blocked = new Uint8Array(w * (view.yhi - view.ylo + 1));
  for (const o of view.objs) {
    if (o.type === 'door') continue;
    if (o.x < view.xlo || o.x > view.xhi || o.y < view.ylo || o.y > view.yhi) continue;
    blocked[o.x - view.xlo + (o.y - view.ylo) * w] = 1;
  }
  return blocked;
}

const DX = DIR_TO_VEC.map((v) => v[0]);
const DY = DIR_TO_VEC.map((v) => v[1]);
/** Expansion order of the original: forward, left, right. */
const FORWARD = 2;
const LEFT = 0;

/** Primitive actions (0 left, 1 right, 2 forward) to satisfy the query, or null. */
export function findPath(view: View, blocked: Uint8Array, q: PathQuery): number[] | null {
  return findPaths(view, blocked, q.x, q.y, q.dir, [q])[0] ?? null;
}

/** `findPath` from one start for many goals in one search: a path (or null) per goal, in order. */
export function findPaths(
  view: View,
  blocked: Uint8Array,
  x0: number,
  y0: number,
  dir0: number,
  goals: readonly PathGoal[],
): (number[] | null)[] {
  const found: (number[] | null)[] = goals.map(() => null);
  let open = goals.length;
  if (open === 0) return found;
  const { xlo, xhi, ylo, yhi } = view;
  const w = xhi - xlo + 1;
  const size = w * (yhi - ylo + 1) * 4;
  const popped = new Uint8Array(size);
  const parent = new Int32Array(size).fill(-1);
  const via = new Int8Array(size);
  const start = ((x0 - xlo) + (y0 - ylo) * w) * 4 + dir0;
  const queue: number[] = [start];
  for (let head = 0; head < queue.length && open > 0; head++) {
    const s = queue[head] as number;
    popped[s] = 1;
    const d = s & 3;
    const cell = s >> 2;
    const x = (cell % w) + xlo;
    const y = ((cell / w) | 0) + ylo;
    const dx = DX[d] as number;
    const dy = DY[d] as number;
    for (let g = 0; g < goals.length; g++) {
      if (found[g] !== null) continue;
      const goal = goals[g] as PathGoal;
      const done = goal.arrive ? x === goal.goalX && y === goal.goalY : goal.goalX - x === dx && goal.goalY - y === dy;
      if (!done) continue;
      const path: number[] = [];
      for (let t = s; t !== start; t = parent[t] as number) path.push(via[t] as number);
      found[g] = path.reverse();
      open--;
    }
    for (let k = 0; k < 3; k++) {
      const action = k === 0 ? FORWARD : k === 1 ? LEFT : 1;
      let nx = x;
      let ny = y;
      let nd = d;
      if (action === FORWARD) {
        nx = x + dx;
        ny = y + dy;
      } else nd = action === LEFT ? (d + 3) & 3 : (d + 1) & 3;
      if (nx < xlo || nx > xhi || ny < ylo || ny > yhi) continue;
      const t = ((nx - xlo) + (ny - ylo) * w) * 4 + nd;
      if (popped[t] || blocked[nx - xlo + (ny - ylo) * w]) continue;
      queue.push(t);
      parent[t] = s;
      via[t] = action;
    }
  }
  return found;
}
