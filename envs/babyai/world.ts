/**
 * The grid world of minigrid (minigrid/core/grid.py, world_object.py), reduced to what the
 * BabyAI levels use: walls, doors, keys, balls and boxes. Cells hold small integers so a
 * world clones cheaply (the oracle simulates many candidate actions per turn).
 */

export type Color = 'red' | 'green' | 'blue' | 'purple' | 'yellow' | 'grey';
export type ObjType = 'door' | 'key' | 'ball' | 'box';
export type DoorState = 'open' | 'closed' | 'locked';

/** minigrid's COLOR_NAMES is `sorted(COLORS)`; the order matters for `rand_elem`. */
export const COLOR_NAMES: readonly Color[] = ['blue', 'green', 'grey', 'purple', 'red', 'yellow'];
export const COLOR_TO_IDX: Readonly<Record<Color, number>> = { red: 0, green: 1, blue: 2, purple: 3, yellow: 4, grey: 5 };
export const OBJECT_TO_IDX = { unseen: 0, empty: 1, wall: 2, door: 4, key: 5, ball: 6, box: 7 } as const;
export const STATE_TO_IDX: Readonly<Record<DoorState, number>> = { open: 0, closed: 1, locked: 2 };

/** Direction 0 points to +x (right), 1 to +y (down), 2 to -x, 3 to -y, as in minigrid. */
export const DIR_TO_VEC: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

/** Cell codes: an object id (>= 0), or one of these. */
export const EMPTY = -1;
export const WALL = -2;

export interface WorldObj {
  readonly id: number;
  readonly type: ObjType;
  color: Color;
  /** Doors only. */
  isOpen: boolean;
  isLocked: boolean;
  /** Current position; (-1, -1) while carried or gone. */
  x: number;
  y: number;
  /** Boxes only: id of the object inside, or -1. */
  contains: number;
}

export function doorState(obj: WorldObj): DoorState {
  return obj.isOpen ? 'open' : obj.isLocked ? 'locked' : 'closed';
}

export function canPickup(obj: WorldObj): boolean {
  return obj.type !== 'door';
}

/** Walls and closed doors hide what is behind them (`see_behind`). */
export function seeBehind(code: number, objs: readonly WorldObj[]): boolean {
  if (code === WALL) return false;
  if (code < 0) return true;
  const obj = objs[code] as WorldObj;
  return obj.type !== 'door' || obj.isOpen;
}

export class World {
  readonly cells: Int32Array;
  objs: WorldObj[] = [];
  agentX = -1;
  agentY = -1;
  agentDir = 0;
  /** Id of the carried object, or -1. */
  carrying = -1;

  constructor(
    readonly width: number,
    readonly height: number,
    cells?: Int32Array,
  ) {
    this.cells = cells ?? new Int32Array(width * height).fill(EMPTY);
  }

  /** Out-of-bounds cells read as walls, as in minigrid's `Grid.slice`. */
  get(x: number, y: number): number {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return WALL;
    return this.cells[y * this.width + x] as number;
  }

  set(x: number, y: number, code: number): void {
    this.cells[y * this.width + x] = code;
    if (code >= 0) {
      const obj = this.objs[code] as WorldObj;
      obj.x = x;
      obj.y = y;
    }
  }

  obj(id: number): WorldObj {
    const obj = this.objs[id];
    if (!obj) throw new Error(`no object ${id}`);
    return obj;
  }

  /** Creates an object that is not yet on the grid. */
  addObj(type: ObjType, color: Color, locked = false): WorldObj {
    const obj: WorldObj = { id: this.objs.length, type, color, isOpen: false, isLocked: locked, x: -1, y: -1, contains: -1 };
    this.objs.push(obj);
    return obj;
  }

  wallRect(x: number, y: number, w: number, h: number): void {
    for (let i = 0; i < w; i++) {
      this.set(x + i, y, WALL);
      this.set(x + i, y + h - 1, WALL);
    }
    for (let j = 0; j < h; j++) {
      this.set(x, y + j, WALL);
      this.set(x + w - 1, y + j, WALL);
    }
  }

  get frontX(): number {
    return this.agentX + (DIR_TO_VEC[this.agentDir] as readonly [number, number])[0];
  }

  get frontY(): number {
    return this.agentY + (DIR_TO_VEC[this.agentDir] as readonly [number, number])[1];
  }

  clone(): World {
    const copy = new World(this.width, this.height, this.cells.slice());
    copy.objs = this.objs.map((o) => ({ ...o }));
    copy.agentX = this.agentX;
    copy.agentY = this.agentY;
    copy.agentDir = this.agentDir;
    copy.carrying = this.carrying;
    return copy;
  }
}
