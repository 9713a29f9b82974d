/**
 * AgentGym's `find_path`: a breadth-first search over (position, direction) with the
 * primitive moves forward / left / right, inside the view's box, around the visible walls,
 * boxes, balls and keys (doors and unseen cells count as free). Reproduced with its quirks:
 * states are marked visited when popped, not when pushed, and a later push overwrites the
 * parent pointer, so the returned path is the one the original returns.
 */
import { DIR_TO_VEC } from './world.ts';
import type { View } from './view.ts';

export interface PathQuery {
  readonly x: number;
  readonly y: number;
  readonly dir: number;
  readonly goalX: number;
  readonly goalY: number;
  /** True: end on the goal cell; false: end next to it, facing it. */
  readonly arrive: boolean;
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

/** Primitive actions (0 left, 1 right, 2 forward) to satisfy the query, or null. */
export function findPath(view: View, blocked: Uint8Array, q: PathQuery): number[] | null {
  const w = view.xhi - view.xlo + 1;
  const h = view.yhi - view.ylo + 1;
  const id = (x: number, y: number, d: number) => ((x - view.xlo) + (y - view.ylo) * w) * 4 + d;
  const popped = new Uint8Array(w * h * 4);
  const parent = new Int32Array(w * h * 4).fill(-1);
  const via = new Int8Array(w * h * 4);
  const start = id(q.x, q.y, q.dir);
  const queue: number[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const s = queue[head] as number;
    popped[s] = 1;
    const d = s & 3;
    const cell = s >> 2;
    const x = (cell % w) + view.xlo;
    const y = Math.floor(cell / w) + view.ylo;
    const [dx, dy] = DIR_TO_VEC[d] as readonly [number, number];
    const done = q.arrive ? x === q.goalX && y === q.goalY : q.goalX - x === dx && q.goalY - y === dy;
    if (done) {
      const path: number[] = [];
      for (let t = s; t !== start; t = parent[t] as number) path.push(via[t] as number);
      return path.reverse();
    }
    for (const action of [2, 0, 1]) {
      let [nx, ny, nd] = [x, y, d];
      if (action === 2) [nx, ny] = [x + dx, y + dy];
      else nd = action === 0 ? (d + 3) % 4 : (d + 1) % 4;
      if (nx < view.xlo || nx > view.xhi || ny < view.ylo || ny > view.yhi) continue;
      const t = id(nx, ny, nd);
      if (popped[t] || blocked[nx - view.xlo + (ny - view.ylo) * w]) continue;
      queue.push(t);
      parent[t] = s;
      via[t] = action;
    }
  }
  return null;
}
