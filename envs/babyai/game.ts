/**
 * One BabyAI episode: minigrid's primitive `step` (plus `RoomGridLevel`'s verifier call)
 * and AgentGym's macro-action `step`, which runs a macro's primitives one by one and stops
 * early when the observation image stops changing. Only the last primitive's outcome
 * counts, as in AgentGym (a goal reached mid-macro and left again is not a success).
 */
import { Prim, updateObjsPoss, type Instr } from './instructions.ts';
import type { GeneratedLevel } from './level.ts';
import { computeMacroActions, type MacroActions } from './macro-actions.ts';
import { computeView, describeView, viewGrid, type View, type ViewGrid } from './view.ts';
import { EMPTY, World } from './world.ts';

export type MacroOutcome =
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'check' }
  | { readonly kind: 'noop' }
  | { readonly kind: 'moved'; readonly success: boolean };

export class Game {
  stepCount = 0;
  /** Reward of the last primitive step (AgentGym reports the last one). */
  lastReward = 0;
  success = false;
  /** The last primitive's verifier said failure (strict levels): minigrid ends the episode with 0. */
  failed = false;
  /**
   * AgentGym lets minigrid run past `max_steps` (it ignores truncation); our own rule stops a
   * macro there. Set by the AgentGym compatibility mode.
   */
  runsPastMaxSteps = false;
  private viewCache: View | null = null;
  /** The image part of the view, computed alone between a macro's primitives; reused by `view()`. */
  private gridCache: ViewGrid | null = null;
  private macroCache: MacroActions | null = null;

  constructor(
    readonly world: World,
    readonly instrs: Instr,
    readonly roomSize: number,
    readonly maxSteps: number,
    readonly mission: string,
  ) {}

  static fromLevel(level: GeneratedLevel): Game {
    const game = new Game(level.world.clone(), level.instrs.clone(), level.roomSize, level.maxSteps, level.mission);
    if (level.shownWorld) game.viewCache = computeView(level.shownWorld);
    return game;
  }

  /** minigrid's `terminated` after the last primitive: the verifier said success or failure. */
  get terminated(): boolean {
    return this.success || this.failed;
  }

  clone(): Game {
    const copy = new Game(this.world.clone(), this.instrs.clone(), this.roomSize, this.maxSteps, this.mission);
    copy.stepCount = this.stepCount;
    copy.lastReward = this.lastReward;
    copy.success = this.success;
    copy.failed = this.failed;
    copy.runsPastMaxSteps = this.runsPastMaxSteps;
    // The caches describe the same state and are replaced, never mutated, so share them.
    copy.viewCache = this.viewCache;
    copy.gridCache = this.gridCache;
    copy.macroCache = this.macroCache;
    return copy;
  }

  get truncated(): boolean {
    return !this.terminated && this.stepCount >= this.maxSteps;
  }

  view(): View {
    this.viewCache ??= computeView(this.world, this.gridCache ?? undefined);
    return this.viewCache;
  }

  /** The observation image only (no object list): cheaper, for the per-primitive comparison. */
  image(): Int32Array {
    if (this.viewCache) return this.viewCache.image;
    this.gridCache ??= viewGrid(this.world);
    return this.gridCache.image;
  }

  macros(): MacroActions {
    this.macroCache ??= computeMacroActions(this.world, this.view());
    return this.macroCache;
  }

  describe(): string {
    return describeView(this.view(), this.world);
  }

  /** minigrid's `step` for one primitive action; returns the verifier's status. */
  primitive(action: number): void {
    const w = this.world;
    this.viewCache = null;
    this.gridCache = null;
    this.macroCache = null;
    this.stepCount++;
    const [fx, fy] = [w.frontX, w.frontY];
    const front = w.get(fx, fy);
    const frontObj = front >= 0 ? w.obj(front) : null;
    if (action === Prim.left) w.agentDir = (w.agentDir + 3) % 4;
    else if (action === Prim.right) w.agentDir = (w.agentDir + 1) % 4;
    else if (action === Prim.forward) {
      if (front === EMPTY || (frontObj?.type === 'door' && frontObj.isOpen)) [w.agentX, w.agentY] = [fx, fy];
    } else if (action === Prim.pickup) {
      if (frontObj && frontObj.type !== 'door' && w.carrying < 0) {
        w.carrying = front;
        w.set(fx, fy, EMPTY);
        [frontObj.x, frontObj.y] = [-1, -1];
      }
    } else if (action === Prim.drop) {
      if (front === EMPTY && w.carrying >= 0) {
        w.set(fx, fy, w.carrying);
        w.carrying = -1;
      }
    } else if (action === Prim.toggle && frontObj) {
      if (frontObj.type === 'door') {
        const carried = w.carrying >= 0 ? w.obj(w.carrying) : null;
        if (!frontObj.isLocked) frontObj.isOpen = !frontObj.isOpen;
        else if (carried?.type === 'key' && carried.color === frontObj.color) {
          frontObj.isLocked = false;
          frontObj.isOpen = true;
        }
      } else if (frontObj.type === 'box') {
        // A toggled box is replaced by its contents.
        w.set(fx, fy, frontObj.contains);
        [frontObj.x, frontObj.y] = [-1, -1];
      }
    }
    if (action === Prim.drop) updateObjsPoss(this.instrs, this);
    const status = this.instrs.verify(this, action);
    this.success = status === 'success';
    this.failed = status === 'failure';
    this.lastReward = this.success ? 1 - 0.9 * (this.stepCount / this.maxSteps) : 0;
  }

  /** AgentGym's `step(action)` on action text. */
  act(text: string): MacroOutcome {
    const action = text.toLowerCase().trim();
    if (action.includes('check')) return { kind: 'check' };
    if (action === '') return { kind: 'invalid', message: 'No change in state.' };
    const { actions, errors } = this.macros();
    const prims = actions.get(action);
    if (!prims) {
      return { kind: 'invalid', message: errors.get(action) ?? 'The action is not recognized. Please check valid actions.' };
    }
    if (prims.length === 0) return { kind: 'noop' };
    let image = this.image();
    for (const p of prims) {
      this.primitive(p);
      // Our addition: stop at the level's step limit (the original lets minigrid run on).
      if (this.stepCount >= this.maxSteps && !this.runsPastMaxSteps) break;
      const next = this.image();
      if (sameImage(image, next)) break;
      image = next;
    }
    return { kind: 'moved', success: this.success };
  }
}

function sameImage(a: Int32Array, b: Int32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
