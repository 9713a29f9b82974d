/**
 * The TextCraft environment behind the actorgym contract, speaking AgentGym's text: reset
 * shows `Crafting commands:\n…\n\nGoal: craft {item}.`; every step answers AgentGym's
 * message for the action. Reward 1 and termination when the goal is crafted; the env has no
 * step limit of its own (the episode's horizon cuts it).
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepInfo, type StepResult } from '../contract.ts';
import { Rng } from '../rng.ts';
import { availableActions } from './actions.ts';
import { commandSet } from './commands.ts';
import { TextCraftGame } from './game.ts';
import { planCrafting } from './planner.ts';
import { itemText } from './names.ts';
import { parseTaskId } from './tasks.ts';
import { craftingTree, type CraftingTree, type Recipe } from './tree.ts';

/** AgentGym's `reset(seed=42)`: the seed that draws distractors and shuffles the list when none is given. */
export const DEFAULT_SEED = 42;

// The `get`s of a plan from an empty inventory depend on the goal only; planning is half a
// reset's time, and GRPO resets each task G times a step.
const plannedGetsByGoal = new WeakMap<CraftingTree, Map<string, readonly string[]>>();

function plannedGets(tree: CraftingTree, goal: string): readonly string[] {
  let byGoal = plannedGetsByGoal.get(tree);
  if (!byGoal) plannedGetsByGoal.set(tree, (byGoal = new Map()));
  let gets = byGoal.get(goal);
  if (!gets) byGoal.set(goal, (gets = (planCrafting(tree, new Map(), goal) ?? []).filter((a) => a.startsWith('get '))));
  return gets;
}

export class TextCraftEnv implements Env {
  private game: TextCraftGame | null = null;
  private commands: readonly Recipe[] = [];
  private actions: readonly string[] = [];
  private over = false;
  private closed = false;

  constructor(readonly spec: EnvSpec) {}

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.assertOpen();
    const goal = parseTaskId(options.taskId);
    const tree = craftingTree();
    // Goal and seed fix the list: the same task id and seed replay the same episode.
    const set = commandSet(tree, goal, Rng.fromString(`${goal}#${options.seed ?? DEFAULT_SEED}`));
    this.game = new TextCraftGame(tree, goal);
    this.commands = set.recipes;
    this.actions = availableActions(tree, set.recipes, plannedGets(tree, goal));
    this.over = false;
    const observation = `Crafting commands:\n${set.recipes.map((r) => r.text).join('\n')}\n\nGoal: craft ${itemText(goal)}.`;
    return { observation, info: { ...this.info(false, false), goal, distractors: set.distractors } };
  }

  async step(action: string): Promise<StepResult> {
    const game = this.current();
    if (this.over) throw new EnvError('ENV_NOT_RESET', 'the episode is over; call reset() first');
    if (typeof action !== 'string') throw new EnvError('PROTOCOL_ERROR', `an action must be a string, got ${typeof action}`);
    const outcome = game.step(action);
    this.over = outcome.terminated;
    return {
      observation: outcome.observation,
      reward: outcome.reward,
      terminated: outcome.terminated,
      truncated: false,
      info: this.info(outcome.terminated, outcome.invalid),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.game = null;
  }

  /** The running game, for the oracle (same process only). */
  /** The actions `info.availableActions` lists for the current task (actions.ts). */
  listedActions(): readonly string[] {
    return this.actions;
  }

  internalGame(): TextCraftGame {
    return this.current();
  }

  /** The recipes shown at reset, in the order shown. */
  shownRecipes(): readonly Recipe[] {
    this.current();
    return this.commands;
  }

  private current(): TextCraftGame {
    this.assertOpen();
    if (!this.game) throw new EnvError('ENV_NOT_RESET', 'call reset() before step()');
    return this.game;
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'the env is closed');
  }

  private info(success: boolean, invalidAction: boolean): StepInfo {
    return { availableActions: this.actions, success, invalidAction };
  }
}
