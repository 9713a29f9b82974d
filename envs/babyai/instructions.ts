/**
 * The instructions of BabyAI's language and their verifiers (minigrid verifier.py):
 * go to, pick up, open, put next to, and the combinators "and", ", then", "after you".
 * `verify` runs after every primitive step and answers 'success' | 'continue' | 'failure'.
 */
import { ObjDesc, type VerifierEnv } from './objdesc.ts';

/** Primitive actions of minigrid (`MiniGridEnv.Actions`). */
export const Prim = { left: 0, right: 1, forward: 2, pickup: 3, drop: 4, toggle: 5 } as const;

export type Status = 'success' | 'continue' | 'failure';

interface InstrBase {
  surface(env: VerifierEnv): string;
  resetVerifier(env: VerifierEnv): void;
  verify(env: VerifierEnv, action: number): Status;
  clone(): Instr;
}

export type Instr = GoToInstr | PickupInstr | OpenInstr | PutNextInstr | SeqInstr;
export type ActionInstr = GoToInstr | PickupInstr | OpenInstr | PutNextInstr;

function nextTo(ax: number, ay: number, bx: number, by: number): boolean {
  return Math.abs(ax - bx) + Math.abs(ay - by) === 1;
}

export class GoToInstr implements InstrBase {
  readonly kind = 'goto';
  constructor(readonly desc: ObjDesc) {}
  surface(env: VerifierEnv): string {
    return 'go to ' + this.desc.surface(env);
  }
  resetVerifier(env: VerifierEnv): void {
    this.desc.findMatchingObjs(env);
  }
  verify(env: VerifierEnv): Status {
    const w = env.world;
    for (const [x, y] of this.desc.objPoss) if (x === w.frontX && y === w.frontY) return 'success';
    return 'continue';
  }
  clone(): GoToInstr {
    return new GoToInstr(this.desc.clone());
  }
}

export class PickupInstr implements InstrBase {
  readonly kind = 'pickup';
  preCarrying = -1;
  /** `strict` (PickupDist's debug mode): picking up any other object is a failure. */
  constructor(
    readonly desc: ObjDesc,
    readonly strict = false,
  ) {}
  surface(env: VerifierEnv): string {
    return 'pick up ' + this.desc.surface(env);
  }
  resetVerifier(env: VerifierEnv): void {
    this.preCarrying = -1;
    this.desc.findMatchingObjs(env);
  }
  verify(env: VerifierEnv, action: number): Status {
    const pre = this.preCarrying;
    const carrying = env.world.carrying;
    this.preCarrying = carrying;
    if (action !== Prim.pickup) return 'continue';
    if (pre === -1 && this.desc.objSet.includes(carrying)) return 'success';
    if (this.strict && carrying >= 0) return 'failure';
    return 'continue';
  }
  clone(): PickupInstr {
    const copy = new PickupInstr(this.desc.clone(), this.strict);
    copy.preCarrying = this.preCarrying;
    return copy;
  }
}

export class OpenInstr implements InstrBase {
  readonly kind = 'open';
  /** `strict` (the Debug open levels): toggling any other door is a failure. */
  constructor(
    readonly desc: ObjDesc,
    readonly strict = false,
  ) {}
  surface(env: VerifierEnv): string {
    return 'open ' + this.desc.surface(env);
  }
  resetVerifier(env: VerifierEnv): void {
    this.desc.findMatchingObjs(env);
  }
  verify(env: VerifierEnv, action: number): Status {
    if (action !== Prim.toggle) return 'continue';
    const w = env.world;
    const front = w.get(w.frontX, w.frontY);
    if (front >= 0 && this.desc.objSet.includes(front) && w.obj(front).isOpen) return 'success';
    if (this.strict && front >= 0 && w.obj(front).type === 'door') return 'failure';
    return 'continue';
  }
  clone(): OpenInstr {
    return new OpenInstr(this.desc.clone(), this.strict);
  }
}

export class PutNextInstr implements InstrBase {
  readonly kind = 'putnext';
  preCarrying = -1;
  constructor(
    readonly descMove: ObjDesc,
    readonly descFixed: ObjDesc,
  ) {}
  surface(env: VerifierEnv): string {
    return 'put ' + this.descMove.surface(env) + ' next to ' + this.descFixed.surface(env);
  }
  resetVerifier(env: VerifierEnv): void {
    this.preCarrying = -1;
    this.descMove.findMatchingObjs(env);
    this.descFixed.findMatchingObjs(env);
  }
  /** Used to reject levels where the objects already are next to each other. */
  objsNext(env: VerifierEnv): boolean {
    for (const id of this.descMove.objSet) {
      const a = env.world.obj(id);
      for (const [bx, by] of this.descFixed.objPoss) if (nextTo(a.x, a.y, bx, by)) return true;
    }
    return false;
  }
  verify(env: VerifierEnv, action: number): Status {
    const pre = this.preCarrying;
    this.preCarrying = env.world.carrying;
    if (action !== Prim.drop) return 'continue';
    for (const id of this.descMove.objSet) {
      if (pre !== id) continue;
      const a = env.world.obj(id);
      for (const [bx, by] of this.descFixed.objPoss) if (nextTo(a.x, a.y, bx, by)) return 'success';
    }
    return 'continue';
  }
  clone(): PutNextInstr {
    const copy = new PutNextInstr(this.descMove.clone(), this.descFixed.clone());
    copy.preCarrying = this.preCarrying;
    return copy;
  }
}

/** `BeforeInstr` ("a, then b"), `AfterInstr` ("a after you b") and `AndInstr` ("a and b"). */
export class SeqInstr implements InstrBase {
  aDone: Status | false = false;
  bDone: Status | false = false;
  constructor(
    readonly kind: 'before' | 'after' | 'and',
    readonly a: Instr,
    readonly b: Instr,
  ) {}
  surface(env: VerifierEnv): string {
    const sep = this.kind === 'before' ? ', then ' : this.kind === 'after' ? ' after you ' : ' and ';
    return this.a.surface(env) + sep + this.b.surface(env);
  }
  resetVerifier(env: VerifierEnv): void {
    this.a.resetVerifier(env);
    this.b.resetVerifier(env);
    this.aDone = false;
    this.bDone = false;
  }
  verify(env: VerifierEnv, action: number): Status {
    if (this.kind === 'and') {
      if (this.aDone !== 'success') this.aDone = this.a.verify(env, action);
      if (this.bDone !== 'success') this.bDone = this.b.verify(env, action);
      return this.aDone === 'success' && this.bDone === 'success' ? 'success' : 'continue';
    }
    // "after" is "before" with the two parts swapped.
    const first = this.kind === 'before' ? 'aDone' : 'bDone';
    const second = this.kind === 'before' ? 'bDone' : 'aDone';
    const firstInstr = this.kind === 'before' ? this.a : this.b;
    const secondInstr = this.kind === 'before' ? this.b : this.a;
    if (this[first] === 'success') {
      this[second] = secondInstr.verify(env, action);
      return this[second] === 'continue' ? 'continue' : (this[second] as Status);
    }
    this[first] = firstInstr.verify(env, action);
    if (this[first] === 'failure') return 'failure';
    if (this[first] === 'success') return this.verify(env, action);
    return 'continue';
  }
  clone(): SeqInstr {
    const copy = new SeqInstr(this.kind, this.a.clone(), this.b.clone());
    copy.aDone = this.aDone;
    copy.bDone = this.bDone;
    return copy;
  }
}

/** Refreshes tracked object positions after a drop (`update_objs_poss`). */
export function updateObjsPoss(instr: Instr, env: VerifierEnv): void {
  if (instr instanceof SeqInstr) {
    updateObjsPoss(instr.a, env);
    updateObjsPoss(instr.b, env);
  } else if (instr instanceof PutNextInstr) {
    instr.descMove.findMatchingObjs(env, false);
    instr.descFixed.findMatchingObjs(env, false);
  } else {
    instr.desc.findMatchingObjs(env, false);
  }
}

/** Navigations a mission needs at most; it sets `max_steps` (`num_navs_needed`). */
export function numNavsNeeded(instr: Instr): number {
  if (instr instanceof SeqInstr) return numNavsNeeded(instr.a) + numNavsNeeded(instr.b);
  return instr instanceof PutNextInstr ? 2 : 1;
}
