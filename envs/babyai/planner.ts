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

/**
 * Scratch buffers shared by every search (the box is at most 8×8 cells × 4 directions), so a
 * search allocates nothing but its paths. Searches never nest and JS is single-threaded.
 */
let popped = new Uint8Array(256);
let parent = new Int32Array(256);
let via = new Int8Array(256);
let queue = new Int32Array(1024);
/** Per box cell: the goal to arrive on, and the goal faced from the cell behind it (-1: none). */
let arriveGoal = new Int16Array(64);
let faceGoal = new Int16Array(64);

function ensureScratch(cells: number): void {
  if (arriveGoal.length >= cells) return;
  const size = cells * 4;
  popped = new Uint8Array(size);
  parent = new Int32Array(size);
  via = new Int8Array(size);
  queue = new Int32Array(size * 4);
  arriveGoal = new Int16Array(cells);
  faceGoal = new Int16Array(cells);
}

/** The primitive actions from `start` to state `s`, read back through the parent pointers. */
function pathTo(s: number, start: number): number[] {
  const path: number[] = [];
  for (let t = s; t !== start; t = parent[t] as number) path.push(via[t] as number);
  return path.reverse();
}

/**
 * Files the goals by cell (`arriveGoal`, `faceGoal`) instead of testing each goal at each pop. A
 * goal cell outside the box can still be faced from its edge, so those few are tested one by one
 * (`outside`); one outside the box can never be arrived on. A repeated goal takes its first
 * copy's path at the end (`copies`). `open`: goals still to find.
 */
function indexGoals(view: View, w: number, goals: readonly PathGoal[]): { outside: number[] | null; copies: [number, number][] | null; open: number } {
  const { xlo, xhi, ylo, yhi } = view;
  let outside: number[] | null = null;
  let copies: [number, number][] | null = null;
  let open = 0;
  for (let g = 0; g < goals.length; g++) {
    const goal = goals[g] as PathGoal;
    if (goal.goalX < xlo || goal.goalX > xhi || goal.goalY < ylo || goal.goalY > yhi) {
      if (!goal.arrive) {
        (outside ??= []).push(g);
        open++;
      }
      continue;
    }
    const table = goal.arrive ? arriveGoal : faceGoal;
    const cell = goal.goalX - xlo + (goal.goalY - ylo) * w;
    const first = table[cell] as number;
    if (first >= 0) {
      (copies ??= []).push([g, first]);
      continue;
    }
    table[cell] = g;
    open++;
  }
  return { outside, copies, open };
}

/** Queues the unvisited states one action (forward, left, right) from state `s` at (x, y) facing `d`; returns the new tail. */
function pushSuccessors(view: View, w: number, blocked: Uint8Array, s: number, x: number, y: number, d: number, tail: number): number {
  const { xlo, xhi, ylo, yhi } = view;
  for (let k = 0; k < 3; k++) {
    const action = k === 0 ? FORWARD : k === 1 ? LEFT : 1;
    let nx = x;
    let ny = y;
    let nd = d;
    if (action === FORWARD) {
      nx = x + (DX[d] as number);
      ny = y + (DY[d] as number);
    } else nd = action === LEFT ? (d + 3) & 3 : (d + 1) & 3;
    if (nx < xlo || nx > xhi || ny < ylo || ny > yhi) continue;
    const t = ((nx - xlo) + (ny - ylo) * w) * 4 + nd;
    if (popped[t] || blocked[nx - xlo + (ny - ylo) * w]) continue;
    if (tail === queue.length) {
      const grown = new Int32Array(queue.length * 2);
      grown.set(queue);
      queue = grown;
    }
    queue[tail++] = t;
    parent[t] = s;
    via[t] = action;
  }
  return tail;
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
  const found: (number[] | null)[] = new Array(goals.length).fill(null);
  if (goals.length === 0) return found;
  const { xlo, xhi, ylo, yhi } = view;
  const w = xhi - xlo + 1;
  const cells = w * (yhi - ylo + 1);
  ensureScratch(cells);
  popped.fill(0, 0, cells * 4);
  arriveGoal.fill(-1, 0, cells);
  faceGoal.fill(-1, 0, cells);
  const { outside, copies, open: goalsToFind } = indexGoals(view, w, goals);
  let open = goalsToFind;
  const start = ((x0 - xlo) + (y0 - ylo) * w) * 4 + dir0;
  queue[0] = start;
  let tail = 1;
  for (let head = 0; head < tail && open > 0; head++) {
    const s = queue[head] as number;
    popped[s] = 1;
    const d = s & 3;
    const cell = s >> 2;
    const x = (cell % w) + xlo;
    const y = ((cell / w) | 0) + ylo;
    const arrive = arriveGoal[cell] as number;
    if (arrive >= 0 && found[arrive] === null) {
      found[arrive] = pathTo(s, start);
      open--;
    }
    const fx = x + (DX[d] as number);
    const fy = y + (DY[d] as number);
    if (fx >= xlo && fx <= xhi && fy >= ylo && fy <= yhi) {
      const face = faceGoal[fx - xlo + (fy - ylo) * w] as number;
      if (face >= 0 && found[face] === null) {
        found[face] = pathTo(s, start);
        open--;
      }
    } else if (outside) {
      for (const g of outside) {
        const goal = goals[g] as PathGoal;
        if (found[g] === null && goal.goalX === fx && goal.goalY === fy) {
          found[g] = pathTo(s, start);
          open--;
        }
      }
    }
    if (open === 0) break;
    tail = pushSuccessors(view, w, blocked, s, x, y, d, tail);
  }
  if (copies) for (const [g, first] of copies) found[g] = found[first]?.slice() ?? null;
  return found;
}
