/**
 * Level construction helpers of minigrid's `RoomGrid` and `MiniGridEnv` (place_obj,
 * place_agent, add_object, add_door, connect_all, add_distractors, check_objs_reachable),
 * driven by our seeded generator instead of numpy's.
 */
import type { Rng } from '../rng.ts';
import { COLOR_NAMES, EMPTY, WALL, World, type Color, type ObjType, type WorldObj } from './world.ts';

/** Thrown to reject a sampled level (minigrid's `RejectSampling`). */
export class RejectSampling extends Error {}
/** Thrown when rejection sampling gives up (minigrid raises `RecursionError`). */
export class GenerationStuck extends Error {}

export interface Room {
  readonly i: number;
  readonly j: number;
  readonly top: readonly [number, number];
  readonly size: number;
  /** Order right, down, left, up; a door id, `true` for a removed wall, or null. */
  readonly doors: (number | true | null)[];
  readonly doorPos: ([number, number] | null)[];
  readonly neighbors: (Room | null)[];
  locked: boolean;
  readonly objs: number[];
}

export function posInside(room: Room, x: number, y: number): boolean {
  const [tx, ty] = room.top;
  return x >= tx && y >= ty && x < tx + room.size && y < ty + room.size;
}

export class RoomGrid {
  world: World;
  rooms: Room[][] = [];
  /**
   * LevelGen's `locked_room`. minigrid sets it in `__init__` and in `add_locked_room` only, so a
   * sample rejected after adding a locked room leaves it to the next sample (a room of the old
   * grid: never the agent's room by identity, yet its area still filters `rand_obj`). Kept across
   * `build()` for the same draws as the original.
   */
  levelGenLockedRoom: Room | null = null;

  constructor(
    readonly rng: Rng,
    readonly roomSize: number,
    readonly numRows: number,
    readonly numCols: number,
    /**
     * Reproduce minigrid's accidental behaviour too. GoToImpUnlock and Unlock compare numpy
     * integers with `is`, which is never true: the key may land in the locked room (then the level
     * cannot be solved) and the locked room gets distractors as well.
     */
    readonly minigridExact = false,
  ) {
    this.world = new World(1, 1);
  }

  /** `RoomGrid._gen_grid`: walls of every room, door positions, agent in the middle. */
  build(): void {
    const rs = this.roomSize;
    this.world = new World((rs - 1) * this.numCols + 1, (rs - 1) * this.numRows + 1);
    this.rooms = [];
    for (let j = 0; j < this.numRows; j++) {
      const row: Room[] = [];
      for (let i = 0; i < this.numCols; i++) {
        const room: Room = {
          i, j, top: [i * (rs - 1), j * (rs - 1)], size: rs,
          doors: [null, null, null, null], doorPos: [null, null, null, null], neighbors: [null, null, null, null],
          locked: false, objs: [],
        };
        row.push(room);
        this.world.wallRect(room.top[0], room.top[1], rs, rs);
      }
      this.rooms.push(row);
    }
    for (let j = 0; j < this.numRows; j++) {
      for (let i = 0; i < this.numCols; i++) {
        const room = this.getRoom(i, j);
        const [xl, yl] = [room.top[0] + 1, room.top[1] + 1];
        const [xm, ym] = [room.top[0] + rs - 1, room.top[1] + rs - 1];
        if (i < this.numCols - 1) {
          room.neighbors[0] = this.getRoom(i + 1, j);
          room.doorPos[0] = [xm, this.rng.range(yl, ym)];
        }
        if (j < this.numRows - 1) {
          room.neighbors[1] = this.getRoom(i, j + 1);
          room.doorPos[1] = [this.rng.range(xl, xm), ym];
        }
        if (i > 0) {
          room.neighbors[2] = this.getRoom(i - 1, j);
          room.doorPos[2] = (room.neighbors[2] as Room).doorPos[0] ?? null;
        }
        if (j > 0) {
          room.neighbors[3] = this.getRoom(i, j - 1);
          room.doorPos[3] = (room.neighbors[3] as Room).doorPos[1] ?? null;
        }
      }
    }
    this.world.agentX = Math.floor(this.numCols / 2) * (rs - 1) + Math.floor(rs / 2);
    this.world.agentY = Math.floor(this.numRows / 2) * (rs - 1) + Math.floor(rs / 2);
    this.world.agentDir = 0;
  }

  getRoom(i: number, j: number): Room {
    return (this.rooms[j] as Room[])[i] as Room;
  }

  roomFromPos(x: number, y: number): Room {
    return this.getRoom(Math.floor(x / (this.roomSize - 1)), Math.floor(y / (this.roomSize - 1)));
  }

  /** `MiniGridEnv.place_obj`; `code` null places nothing (used to place the agent). */
  placeObj(code: number | null, room: Room, rejectNextTo: boolean, maxTries = 1000): [number, number] {
    const w = this.world;
    const [tx, ty] = [Math.max(room.top[0], 0), Math.max(room.top[1], 0)];
    for (let tries = 0; ; tries++) {
      if (tries > maxTries) throw new GenerationStuck('rejection sampling failed in place_obj');
      const x = this.rng.range(tx, Math.min(tx + room.size, w.width));
      const y = this.rng.range(ty, Math.min(ty + room.size, w.height));
      if (w.get(x, y) !== EMPTY) continue;
      if (x === w.agentX && y === w.agentY) continue;
      if (rejectNextTo && Math.abs(w.agentX - x) + Math.abs(w.agentY - y) < 2) continue;
      if (code !== null) w.set(x, y, code);
      return [x, y];
    }
  }

  /** `RoomGrid.place_agent`: a random cell of the room, not facing an object. */
  placeAgent(i?: number, j?: number): void {
    const room = this.getRoom(i ?? this.rng.range(0, this.numCols), j ?? this.rng.range(0, this.numRows));
    const w = this.world;
    for (;;) {
      w.agentX = -1;
      w.agentY = -1;
      [w.agentX, w.agentY] = this.placeObj(null, room, false);
      w.agentDir = this.rng.range(0, 4);
      const front = w.get(w.frontX, w.frontY);
      if (front === EMPTY || front === WALL) return;
    }
  }

  addObject(i: number, j: number, kind?: Exclude<ObjType, 'door'>, color?: Color): WorldObj {
    const type = kind ?? this.rng.pick(['key', 'ball', 'box'] as const);
    return this.placeInRoom(i, j, this.world.addObj(type, color ?? this.rng.pick(COLOR_NAMES)));
  }

  /** `RoomGrid.place_in_room`: an object made with `world.addObj` (e.g. a box holding a key). */
  placeInRoom(i: number, j: number, obj: WorldObj): WorldObj {
    const room = this.getRoom(i, j);
    this.placeObj(obj.id, room, true);
    room.objs.push(obj.id);
    return obj;
  }

  /** `RoomGrid.remove_wall`: opens the whole wall `wallIdx` (right, down, left, up) of room (i, j). */
  removeWall(i: number, j: number, wallIdx: number): void {
    const room = this.getRoom(i, j);
    const neighbor = room.neighbors[wallIdx];
    if (room.doors[wallIdx] !== null || !neighbor) throw new Error(`cannot remove wall ${wallIdx} of room ${i},${j}`);
    const [tx, ty] = room.top;
    const n = room.size;
    for (let k = 1; k < n - 1; k++) {
      if (wallIdx === 0) this.world.set(tx + n - 1, ty + k, EMPTY);
      else if (wallIdx === 1) this.world.set(tx + k, ty + n - 1, EMPTY);
      else if (wallIdx === 2) this.world.set(tx, ty + k, EMPTY);
      else this.world.set(tx + k, ty, EMPTY);
    }
    room.doors[wallIdx] = true;
    neighbor.doors[(wallIdx + 2) % 4] = true;
  }

  /** minigrid's `_rand_subset`: `n` distinct items in draw order. */
  randSubset<T>(items: readonly T[], n: number): T[] {
    const rest = [...items];
    const out: T[] = [];
    while (out.length < n) out.push(rest.splice(this.rng.int(rest.length), 1)[0] as T);
    return out;
  }

  addDoor(i: number, j: number, doorIdx?: number, color?: Color, locked?: boolean): WorldObj {
    const room = this.getRoom(i, j);
    let idx = doorIdx;
    if (idx === undefined) {
      do idx = this.rng.range(0, 4);
      while (!room.neighbors[idx] || room.doors[idx] !== null);
    }
    const doorColor = color ?? this.rng.pick(COLOR_NAMES);
    const isLocked = locked ?? this.rng.bool();
    if (room.doors[idx] !== null) throw new Error('door already exists');
    room.locked = isLocked;
    const door = this.world.addObj('door', doorColor, isLocked);
    const pos = room.doorPos[idx] as [number, number];
    this.world.set(pos[0], pos[1], door.id);
    room.doors[idx] = door.id;
    (room.neighbors[idx] as Room).doors[(idx + 2) % 4] = door.id;
    return door;
  }

  /**
   * Adds unlocked doors at random until every room is reachable from the agent's room;
   * their colours are drawn from `doorColors` (Unlock keeps the locked door's colour unique).
   */
  connectAll(maxItrs = 5000, doorColors: readonly Color[] = COLOR_NAMES): void {
    const start = this.roomFromPos(this.world.agentX, this.world.agentY);
    const total = this.numRows * this.numCols;
    for (let itrs = 0; ; itrs++) {
      if (itrs > maxItrs) throw new GenerationStuck('connect_all failed');
      if (this.reachableRooms(start) === total) return;
      const i = this.rng.range(0, this.numCols);
      const j = this.rng.range(0, this.numRows);
      const k = this.rng.range(0, 4);
      const room = this.getRoom(i, j);
      if (!room.doorPos[k] || room.doors[k] !== null) continue;
      if (room.locked || (room.neighbors[k] as Room).locked) continue;
      this.addDoor(i, j, k, this.rng.pick(doorColors), false);
    }
  }

  private reachableRooms(start: Room): number {
    const seen = new Set<Room>();
    const stack = [start];
    while (stack.length > 0) {
      const room = stack.pop() as Room;
      if (seen.has(room)) continue;
      seen.add(room);
      for (let k = 0; k < 4; k++) if (room.doors[k] !== null) stack.push(room.neighbors[k] as Room);
    }
    return seen.size;
  }

  addDistractors(i?: number, j?: number, num = 10, allUnique = true): WorldObj[] {
    const existing = new Set<string>();
    for (const row of this.rooms) for (const room of row) for (const id of room.objs) {
      const o = this.world.obj(id);
      existing.add(`${o.type} ${o.color}`);
    }
    const dists: WorldObj[] = [];
    while (dists.length < num) {
      const color = this.rng.pick(COLOR_NAMES);
      const type = this.rng.pick(['key', 'ball', 'box'] as const);
      if (allUnique && existing.has(`${type} ${color}`)) continue;
      const ri = i ?? this.rng.range(0, this.numCols);
      const rj = j ?? this.rng.range(0, this.numRows);
      dists.push(this.addObject(ri, rj, type, color));
      existing.add(`${type} ${color}`);
    }
    return dists;
  }

  /** True when every object is reachable from the agent without moving any object. */
  checkObjsReachable(raise = true): boolean {
    const w = this.world;
    const reach = new Uint8Array(w.width * w.height);
    const stack: [number, number][] = [[w.agentX, w.agentY]];
    while (stack.length > 0) {
      const [x, y] = stack.pop() as [number, number];
      if (x < 0 || y < 0 || x >= w.width || y >= w.height || reach[y * w.width + x]) continue;
      reach[y * w.width + x] = 1;
      const code = w.get(x, y);
      if (code === WALL || (code >= 0 && w.obj(code).type !== 'door')) continue;
      stack.push([x + 1, y], [x - 1, y], [x, y + 1], [x, y - 1]);
    }
    for (let idx = 0; idx < reach.length; idx++) {
      if ((w.cells[idx] as number) >= 0 && !reach[idx]) {
        if (!raise) return false;
        throw new RejectSampling('unreachable object');
      }
    }
    return true;
  }

  openAllDoors(): void {
    for (const obj of this.world.objs) if (obj.type === 'door') obj.isOpen = true;
  }
}

