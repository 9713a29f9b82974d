/**
 * What every task family provides: a world built for one variation, the task description, a goal
 * that scores progress 0–100 with partial credit for sub-goals, and an oracle step. Scoring
 * follows ScienceWorld: sub-goals add partial credit, the final sub-goal completes the task with
 * 100, and focusing on the wrong thing (or answering wrong) ends the episode with 0.
 */
import type { Resolved } from './parser.ts';
import type { Thing } from './thing.ts';
import type { World } from './world.ts';

export type Family = 'measure' | 'conductivity' | 'find' | 'chem-mix' | 'lifespan';
export type GoalStatus = 'running' | 'success' | 'failure';

/** Sub-goals reached so far and their weights; the score is their sum until the task ends. */
export class ScoreCard {
  private readonly reached = new Set<string>();
  status: GoalStatus = 'running';

  constructor(private readonly weights: Readonly<Record<string, number>>) {}

  reach(name: string): void {
    if (this.status === 'running' && name in this.weights) this.reached.add(name);
  }

  has(name: string): boolean {
    return this.reached.has(name);
  }

  succeed(): void {
    if (this.status === 'running') this.status = 'success';
  }

  fail(): void {
    if (this.status === 'running') this.status = 'failure';
  }

  get score(): number {
    if (this.status === 'success') return 100;
    if (this.status === 'failure') return 0;
    let sum = 0;
    for (const name of this.reached) sum += this.weights[name] ?? 0;
    // Partial credit never reaches the full score: only the final sub-goal does.
    return Math.min(sum, 90);
  }

  /** Names of the sub-goals reached, for info and tests. */
  list(): string[] {
    return [...this.reached];
  }
}

export interface Goal {
  readonly card: ScoreCard;
  /** The agent focused on `thing` (ScienceWorld's `focus on`). */
  focus(world: World, thing: Thing): void;
  /** An action ran (before the world advanced), for sub-goals about what the agent did. */
  acted?(world: World, action: Resolved): void;
  /** After every action and its iterations: check sub-goals and completion. */
  update(world: World): void;
}

/** The oracle's next intended action: a resolved action, or plain text ("wait"). */
export type Intent = Resolved | string;

export interface SciTask {
  readonly family: Family;
  /** ScienceWorld's task name, e.g. `test-conductivity`. */
  readonly taskName: string;
  readonly variation: number;
  readonly description: string;
  readonly world: World;
  readonly goal: Goal;
  /** The parameters that make this variation what it is; train and test never share one. */
  readonly signature: string;
  /** The oracle's next step, computed from the world and the goal's progress. */
  oracle(): Intent;
}

/** A family: its ScienceWorld task names and a builder for one variation of one of them. */
export interface FamilyDef {
  readonly family: Family;
  readonly taskNames: readonly string[];
  build(taskName: string, variation: number): SciTask;
}
