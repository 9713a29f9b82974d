/**
 * `ObjDesc` of minigrid's BabyAI verifier (minigrid/envs/babyai/core/verifier.py): a
 * description such as "the red ball on your left" and the objects it matches.
 */
import { DIR_TO_VEC, type Color, type ObjType, type World } from './world.ts';

export type Loc = 'left' | 'right' | 'front' | 'behind';
export const LOC_NAMES: readonly Loc[] = ['left', 'right', 'front', 'behind'];

/** What the verifier needs from a level: the world and its room size (for "same room"). */
export interface VerifierEnv {
  readonly world: World;
  readonly roomSize: number;
}

export class ObjDesc {
  /** Ids of the objects matching the description (fixed at reset). */
  objSet: number[] = [];
  /** Positions of those objects, refreshed when an object is dropped. */
  objPoss: [number, number][] = [];

  constructor(
    readonly type: ObjType | null,
    readonly color: Color | null = null,
    readonly loc: Loc | null = null,
  ) {}

  surface(env: VerifierEnv): string {
    this.findMatchingObjs(env);
    if (this.objSet.length === 0) throw new Error('no object matching description');
    let s = this.type ?? 'object';
    if (this.color) s = `${this.color} ${s}`;
    if (this.loc === 'front') s += ' in front of you';
    else if (this.loc === 'behind') s += ' behind you';
    else if (this.loc) s += ` on your ${this.loc}`;
    // minigrid's find_matching_objs also matches walls, which are grey: a colour-only "grey
    // object" is never unique there ("pick up a grey object"), though a wall cannot be picked.
    const wallsMatch = this.type === null && this.color === 'grey';
    return (this.objSet.length > 1 || wallsMatch ? 'a ' : 'the ') + s;
  }

  /**
   * Scans the grid column by column, as the original does. Without `useLocation` only the
   * objects matched at reset are tracked, so "the ball on your right" stays the same ball.
   */
  findMatchingObjs(env: VerifierEnv, useLocation = true): void {
    const w = env.world;
    if (useLocation) this.objSet = [];
    this.objPoss = [];
    const rs = env.roomSize - 1;
    const roomX = Math.floor(w.agentX / rs) * rs;
    const roomY = Math.floor(w.agentY / rs) * rs;
    const [d1x, d1y] = DIR_TO_VEC[w.agentDir] as readonly [number, number];
    const [d2x, d2y] = [-d1y, d1x];
    for (let i = 0; i < w.width; i++) {
      for (let j = 0; j < w.height; j++) {
        const code = w.get(i, j);
        if (code < 0) continue; // empty or wall
        if (!useLocation && !this.objSet.includes(code)) continue;
        const obj = w.obj(code);
        if (this.type !== null && obj.type !== this.type) continue;
        if (this.color !== null && obj.color !== this.color) continue;
        if (useLocation && this.loc) {
          // Locations apply only to objects in the room the agent starts in.
          if (i < roomX || j < roomY || i > roomX + rs || j > roomY + rs) continue;
          const [vx, vy] = [i - w.agentX, j - w.agentY];
          const side = vx * d2x + vy * d2y;
          const ahead = vx * d1x + vy * d1y;
          const ok = { left: side < 0, right: side > 0, front: ahead > 0, behind: ahead < 0 }[this.loc];
          if (!ok) continue;
        }
        if (useLocation) this.objSet.push(code);
        this.objPoss.push([i, j]);
      }
    }
  }

  clone(): ObjDesc {
    const copy = new ObjDesc(this.type, this.color, this.loc);
    copy.objSet = this.objSet.slice();
    copy.objPoss = this.objPoss.map(([x, y]) => [x, y]);
    return copy;
  }
}
