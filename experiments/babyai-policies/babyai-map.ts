/**
 * The map of experiments/babyai-policies/map-policy.ts: every cell a BabyAI agent has seen, in world coordinates
 * (walls, free cells, doors and objects), with shortest paths over the cells seen to be passable.
 */
import { VIEW_SIZE, viewGrid } from '../../envs/babyai/view.ts';
import { DIR_TO_VEC, EMPTY, WALL, type World } from '../../envs/babyai/world.ts';
import { describes, type GoalObject } from './babyai-heuristic.ts';

interface Seen { readonly type: string; readonly color: string; readonly state: string | null }

/** What the agent has seen, in world coordinates. */
export class MapMemory {
  readonly seen: Uint8Array;
  /** 1 where a seen cell can be walked through: free, or a door that is not locked. */
  readonly passable: Uint8Array;
  readonly objs = new Map<number, Seen>();
  /** 1 inside rooms: the room grid's walls are where every level of a size puts them. */
  readonly interior: Uint8Array;

  constructor(readonly width: number, readonly height: number, roomSize: number, private readonly wallCellWorth = 0.25) {
    this.seen = new Uint8Array(width * height);
    this.passable = new Uint8Array(width * height);
    this.interior = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) this.interior[y * width + x] = x % (roomSize - 1) !== 0 && y % (roomSize - 1) !== 0 ? 1 : 0;
    }
  }

  /** What seeing a cell is worth: a room cell can hold an object, a cell of the room grid's walls only a door. */
  worth(idx: number): number {
    return this.seen[idx] ? 0 : this.interior[idx] ? 1 : this.wallCellWorth;
  }

  /** The world cells in the agent's current view. */
  visible(world: World): number[] {
    const g = viewGrid(world);
    const cells: number[] = [];
    for (let j = 0; j < VIEW_SIZE; j++) {
      for (let i = 0; i < VIEW_SIZE; i++) {
        if (!g.mask[i + j * VIEW_SIZE]) continue;
        const x = g.tlx - g.fx * j + g.rx * i;
        const y = g.tly - g.fy * j + g.ry * i;
        if (x >= 0 && y >= 0 && x < this.width && y < this.height) cells.push(y * this.width + x);
      }
    }
    return cells;
  }

  update(world: World): void {
    for (const idx of this.visible(world)) {
      this.seen[idx] = 1;
      const code = world.cells[idx] as number;
      if (code === EMPTY || code === WALL) {
        this.objs.delete(idx);
        this.passable[idx] = code === EMPTY ? 1 : 0;
      } else {
        const o = world.obj(code);
        const state = o.type === 'door' ? (o.isOpen ? 'open' : o.isLocked ? 'locked' : 'closed') : null;
        this.objs.set(idx, { type: o.type, color: o.color, state });
        this.passable[idx] = o.type === 'door' && state !== 'locked' ? 1 : 0;
      }
    }
    // The agent's own cell is free even when it stands in a doorway it has not seen from outside.
    this.seen[world.agentY * this.width + world.agentX] = 1;
  }

  /** What the view from `world`'s pose would reveal: the worth of its cells not seen yet. */
  unseenIn(world: World): number {
    return this.visible(world).reduce((sum, idx) => sum + this.worth(idx), 0);
  }

  /** Seen cells holding an object of this description. */
  find(o: GoalObject, state?: string): number[] {
    return [...this.objs].filter(([, s]) => describes(o, s) && (state === undefined || s.state === state)).map(([idx]) => idx);
  }

  /** Steps over passable seen cells from (x, y) to a cell for which `goal` holds. */
  distance(x: number, y: number, goal: (idx: number) => boolean): number {
    const w = this.width;
    const dist = new Int32Array(w * this.height).fill(-1);
    const start = y * w + x;
    dist[start] = 0;
    const queue = [start];
    for (let head = 0; head < queue.length; head++) {
      const idx = queue[head]!;
      if (goal(idx)) return dist[idx]!;
      for (const n of [idx - 1, idx + 1, idx - w, idx + w]) {
        if (n < 0 || n >= dist.length || dist[n] !== -1 || !this.passable[n]) continue;
        dist[n] = dist[idx]! + 1;
        queue.push(n);
      }
    }
    return Infinity;
  }

  /** A passable cell next to one of `targets`. */
  nextTo(targets: readonly number[]): (idx: number) => boolean {
    const set = new Set(targets.flatMap((t) => [t - 1, t + 1, t - this.width, t + this.width]));
    return (idx) => set.has(idx);
  }

  /** A seen passable cell with an unseen neighbour: the edge of what is known. */
  frontier(idx: number): boolean {
    const w = this.width;
    return [idx - 1, idx + 1, idx - w, idx + w].some((n) => n >= 0 && n < this.seen.length && !this.seen[n]);
  }
}

/** The agent's pose at reset: goals such as "the box behind you" are relative to it. */
export interface Start { readonly x: number; readonly y: number; readonly dir: number; readonly roomSize: number }

/** Whether the object on cell `idx` is where the goal says (minigrid's ObjDesc rule). */
export function located(o: GoalObject, start: Start, width: number, idx: number): boolean {
  if (!o.loc) return true;
  const [x, y] = [idx % width, Math.floor(idx / width)];
  const rs = start.roomSize - 1;
  const [rx, ry] = [Math.floor(start.x / rs) * rs, Math.floor(start.y / rs) * rs];
  if (x < rx || y < ry || x > rx + rs || y > ry + rs) return false;
  const [dx, dy] = DIR_TO_VEC[start.dir]!;
  const [vx, vy] = [x - start.x, y - start.y];
  const side = -vx * dy + vy * dx;
  const ahead = vx * dx + vy * dy;
  return { left: side < 0, right: side > 0, front: ahead > 0, behind: ahead < 0 }[o.loc];
}
