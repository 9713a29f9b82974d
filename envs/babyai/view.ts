/**
 * The agent's egocentric 7×7 view: minigrid's `gen_obs_grid` (slice, rotate, `process_vis`
 * occlusion, carried object at the agent's cell) and the object list that AgentGym's
 * `postprocess_obs` reads from it.
 */
import {
  COLOR_TO_IDX, DIR_TO_VEC, EMPTY, OBJECT_TO_IDX, STATE_TO_IDX, WALL,
  doorState, seeBehind, type Color, type DoorState, type ObjType, type World,
} from './world.ts';

export const VIEW_SIZE = 7;

export interface SeenObj {
  /** AgentGym's name: `red ball`, `blue closed door`, `grey wall`. */
  readonly name: string;
  readonly type: ObjType | 'wall';
  readonly color: Color;
  readonly state: DoorState | null;
  readonly x: number;
  readonly y: number;
  /** Manhattan distance from the agent. */
  readonly dis: number;
}

export interface Barrier {
  readonly name: 'wall' | 'box';
  readonly x: number;
  readonly y: number;
  /** Steps straight ahead. */
  readonly dis: number;
}

export interface View {
  /** minigrid's observation image, one integer per cell (type, color, state); 0 = unseen. */
  readonly image: Int32Array;
  /** Visible objects and walls, nearest first (stable sort, scan order for ties). */
  readonly objs: readonly SeenObj[];
  /** Walls and boxes straight ahead, nearest first. */
  readonly barriers: readonly Barrier[];
  /** AgentGym's path-planning box (inclusive), derived from the view corners. */
  readonly xlo: number;
  readonly xhi: number;
  readonly ylo: number;
  readonly yhi: number;
}

function encode(code: number, world: World): number {
  if (code === EMPTY) return OBJECT_TO_IDX.empty * 64;
  if (code === WALL) return OBJECT_TO_IDX.wall * 64 + COLOR_TO_IDX.grey * 8;
  const obj = world.obj(code);
  const state = obj.type === 'door' ? STATE_TO_IDX[doorState(obj)] : 0;
  return OBJECT_TO_IDX[obj.type] * 64 + COLOR_TO_IDX[obj.color] * 8 + state;
}

/** `Grid.process_vis` on the rotated view, agent at (3, 6). */
function processVis(cells: Int32Array, world: World): Uint8Array {
  const n = VIEW_SIZE;
  const objs = world.objs;
  const mask = new Uint8Array(n * n);
  mask[3 + 6 * n] = 1;
  for (let j = n - 1; j >= 0; j--) {
    for (let i = 0; i < n - 1; i++) {
      if (!mask[i + j * n] || !seeBehind(cells[i + j * n] as number, objs)) continue;
      mask[i + 1 + j * n] = 1;
      if (j > 0) {
        mask[i + 1 + (j - 1) * n] = 1;
        mask[i + (j - 1) * n] = 1;
      }
    }
    for (let i = n - 1; i > 0; i--) {
      if (!mask[i + j * n] || !seeBehind(cells[i + j * n] as number, objs)) continue;
      mask[i - 1 + j * n] = 1;
      if (j > 0) {
        mask[i - 1 + (j - 1) * n] = 1;
        mask[i + (j - 1) * n] = 1;
      }
    }
  }
  return mask;
}

/**
 * The view's cells, visibility mask and observation image, without the object list: what a macro
 * action compares after each primitive to stop early. View cell (i, j) is world cell
 * (tlx - fx·j + rx·i, tly - fy·j + ry·i).
 */
export interface ViewGrid {
  readonly cells: Int32Array;
  readonly mask: Uint8Array;
  readonly image: Int32Array;
  readonly tlx: number;
  readonly tly: number;
  readonly fx: number;
  readonly fy: number;
  readonly rx: number;
  readonly ry: number;
}

export function viewGrid(world: World): ViewGrid {
  const n = VIEW_SIZE;
  const vec = DIR_TO_VEC[world.agentDir] as readonly [number, number];
  const fx = vec[0];
  const fy = vec[1];
  const rx = -fy;
  const ry = fx;
  const tlx = world.agentX + fx * (n - 1) - rx * Math.floor(n / 2);
  const tly = world.agentY + fy * (n - 1) - ry * Math.floor(n / 2);
  const cells = new Int32Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) cells[i + j * n] = world.get(tlx - fx * j + rx * i, tly - fy * j + ry * i);
  }
  const mask = processVis(cells, world);
  cells[3 + 6 * n] = world.carrying >= 0 ? world.carrying : EMPTY;
  const image = new Int32Array(n * n);
  for (let k = 0; k < n * n; k++) if (mask[k]) image[k] = encode(cells[k] as number, world);
  return { cells, mask, image, tlx, tly, fx, fy, rx, ry };
}

/** The full view; `grid` is this state's `viewGrid` when the caller already has it. */
export function computeView(world: World, grid: ViewGrid = viewGrid(world)): View {
  const n = VIEW_SIZE;
  const { cells, mask, image, tlx, tly, fx, fy, rx, ry } = grid;
  const { agentX: ax, agentY: ay } = world;
  const objs: SeenObj[] = [];
  const barriers: Barrier[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const k = i + j * n;
      if (!mask[k]) continue;
      const code = cells[k] as number;
      const x = tlx - fx * j + rx * i;
      const y = tly - fy * j + ry * i;
      const dis = Math.abs(ax - x) + Math.abs(ay - y);
      if (x < 0 || y < 0 || dis === 0 || code === EMPTY) continue;
      let blocks = code === WALL;
      if (code === WALL) {
        objs.push({ name: 'grey wall', type: 'wall', color: 'grey', state: null, x, y, dis });
      } else {
        const o = world.obj(code);
        const state = o.type === 'door' ? doorState(o) : null;
        const name = state ? `${o.color} ${state} door` : `${o.color} ${o.type}`;
        objs.push({ name, type: o.type, color: o.color, state, x, y, dis });
        blocks = o.type === 'box';
      }
      if (blocks) {
        const relx = x - ax;
        const rely = y - ay;
        if (fx * rely - fy * relx === 0) {
          barriers.push({ name: code === WALL ? 'wall' : 'box', x, y, dis: fx * relx + fy * rely });
        }
      }
    }
  }
  objs.sort((a, b) => a.dis - b.dis);
  barriers.sort((a, b) => a.dis - b.dis);

  // AgentGym's range: from the top-left corner 7 steps along (-forward + right), half-open.
  const bx = tlx + n * (rx - fx);
  const by = tly + n * (ry - fy);
  const xlo = bx < tlx ? bx : tlx;
  const xhi = bx < tlx ? tlx : bx - 1;
  const ylo = by < tly ? by : tly;
  const yhi = by < tly ? tly : by - 1;
  return { image, objs, barriers, xlo, xhi, ylo, yhi };
}

/** AgentGym's text for the view: objects with relative positions, walls ahead, carrying. */
export function describeView(view: View, world: World): string {
  const [fx, fy] = DIR_TO_VEC[world.agentDir] as readonly [number, number];
  const [rx, ry] = DIR_TO_VEC[(world.agentDir + 1) % 4] as readonly [number, number];
  let text: string;
  if (view.objs.length > 0) {
    text = 'In front of you in this room, you can see several objects: ';
    const counts = new Map<string, number>();
    for (const o of view.objs) {
      if (o.type === 'wall') continue;
      const [relx, rely] = [o.x - world.agentX, o.y - world.agentY];
      const front = fx * relx + fy * rely;
      const right = rx * relx + ry * rely;
      let where: string;
      if (right === 0) where = `right in front of you ${front} steps away. `;
      else if (right > 0) where = `${front} steps in front of you and ${right} steps to your right. `;
      else where = `${front} steps in front of you and ${-right} steps to your left. `;
      const count = (counts.get(o.name) ?? 0) + 1;
      counts.set(o.name, count);
      text += `There is a ${o.name} ${count} ${where} `;
    }
  } else {
    text = 'You cannot see any objects within sight.';
  }
  text += 'The room has walls around you. ';
  const nearest = view.barriers[0];
  if (nearest) text += `You are facing a ${nearest.name} ${nearest.dis} steps away. `;
  if (world.carrying >= 0) {
    const c = world.obj(world.carrying);
    text += `You are carrying a ${c.color} ${c.type}.`;
  } else {
    text += 'You are not carrying anything.';
  }
  return text;
}
