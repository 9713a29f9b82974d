/**
 * The BabyAI environment behind the actorgym contract, speaking AgentGym's text: the first
 * observation is `Your goal: …`, the view text and `Available actions: [...]`; every step
 * answers the view text (or the original's message) and the available actions.
 */
import { EnvError, type Env, type EnvSpec, type JsonValue, type ResetOptions, type ResetResult, type StepInfo, type StepResult } from '../contract.ts';
import { Game } from './game.ts';
import { taskStart } from './start-cache.ts';
import { doorState, type World } from './world.ts';

/**
 * How an episode ends and what a step pays.
 * - `actorgym` (default): a success or a failure (strict levels) ends the episode, the step
 *   limit truncates it, and `reward` is what this step earned.
 * - `agentgym`: agentenv-babyai's rule (`BabyAI.update`, `BabyAIEnv.step`): the episode ends
 *   only on a success paying more than 0.5; a later success, a failure and the step limit do
 *   not end it. `reward` is the original's `env.reward` (the last macro's minigrid reward, kept
 *   through refused and `check` actions) and `info.score` its running sum, the original's `score`.
 */
export type BabyAIDoneRule = 'actorgym' | 'agentgym';

export class BabyAIEnv implements Env {
  private game: Game | null = null;
  private over = false;
  private closed = false;
  private taskId = '';
  private doneRule: BabyAIDoneRule = 'actorgym';
  /** The `agentgym` rule's `env.reward` and `score`. */
  private stickyReward = 0;
  private score = 0;

  constructor(readonly spec: EnvSpec) {}

  /** Switches the done rule for the following resets (the AgentGym HTTP endpoint's compat mode). */
  setDoneRule(rule: BabyAIDoneRule): void {
    this.doneRule = rule;
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.assertOpen();
    // BabyAI has no randomness inside an episode: the task id fixes everything and the
    // reset seed only has to be accepted.
    const start = taskStart(options.taskId, firstObservation);
    this.game = start.game.clone();
    this.game.runsPastMaxSteps = this.doneRule === 'agentgym';
    this.taskId = options.taskId;
    this.over = false;
    this.stickyReward = 0;
    this.score = 0;
    return { observation: start.observation, info: this.info(false, false) };
  }

  async step(action: string): Promise<StepResult> {
    const game = this.current();
    if (this.over) throw new EnvError('ENV_NOT_RESET', 'the episode is over; call reset() first');
    const outcome = game.act(action);
    let text: string;
    let invalid = false;
    if (outcome.kind === 'invalid') {
      text = outcome.message;
      invalid = true;
    } else if (outcome.kind === 'check') {
      text = `You can take the following actions: ${[...game.macros().actions.keys()].join(', ')}`;
    } else if (outcome.kind === 'noop') {
      text = 'No change in state.';
    } else {
      // The original appends this whenever minigrid says done, a failure included.
      text = game.describe() + (game.terminated ? '\n The task is completed.' : '');
    }
    const moved = outcome.kind === 'moved';
    const observation = text + this.actionList();
    if (this.doneRule === 'agentgym') {
      if (moved) this.stickyReward = game.lastReward;
      const done = moved && game.terminated && this.stickyReward > 0.5;
      this.score += this.stickyReward;
      this.over = done;
      const info = { ...this.info(done && game.success, invalid), score: this.score };
      return { observation, reward: this.stickyReward, terminated: done, truncated: false, info };
    }
    const terminated = moved && game.terminated;
    const truncated = moved && game.truncated;
    this.over = terminated || truncated;
    const reward = terminated ? game.lastReward : 0;
    return { observation, reward, terminated, truncated, info: this.info(terminated && game.success, invalid) };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.game = null;
  }

  /** The running game, for the oracle (same process only). */
  internalGame(): Game {
    return this.current();
  }

  /** A JSON picture of the whole grid for the dashboard; not computed on `step`. */
  snapshot(): { [key: string]: JsonValue } {
    const game = this.current();
    const w = game.world;
    const carried = w.carrying >= 0 ? w.obj(w.carrying) : null;
    return {
      taskId: this.taskId,
      mission: game.mission,
      width: w.width,
      height: w.height,
      rows: gridRows(w),
      agent: { x: w.agentX, y: w.agentY, dir: w.agentDir },
      carrying: carried ? { type: carried.type, color: carried.color } : null,
      steps: game.stepCount,
      maxSteps: game.maxSteps,
    };
  }

  private current(): Game {
    this.assertOpen();
    if (!this.game) throw new EnvError('ENV_NOT_RESET', 'call reset() before step()');
    return this.game;
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'the env is closed');
  }

  private actionList(): string {
    return actionList(this.game as Game);
  }

  private info(success: boolean, invalidAction: boolean): StepInfo {
    const game = this.game as Game;
    return {
      availableActions: [...game.macros().actions.keys()],
      success,
      invalidAction,
      steps: game.stepCount,
      maxSteps: game.maxSteps,
    };
  }
}

function actionList(game: Game): string {
  const names = [...game.macros().actions.keys()];
  return `\nAvailable actions: [${names.map((n) => `"${n}"`).join(', ')}]`;
}

/** The reset observation: the goal, the view and the actions. */
function firstObservation(game: Game): string {
  // AgentGym shows sequences as "a and b" ("then" and "after you" become "and").
  const goal = game.mission.replaceAll('then', 'and').replaceAll('after you', 'and');
  return `Your goal: ${goal}\n${game.describe()}${actionList(game)}`;
}

const OBJ_CHAR = { door: 'D', key: 'K', ball: 'A', box: 'B' } as const;
const DIR_CHAR = ['>', 'V', '<', '^'];

/** minigrid's `__str__` layout: two characters per cell (`WG` wall, `AR` red ball, `LB` locked blue door). */
function gridRows(w: World): string[] {
  const rows: string[] = [];
  for (let y = 0; y < w.height; y++) {
    let row = '';
    for (let x = 0; x < w.width; x++) {
      const code = w.get(x, y);
      if (x === w.agentX && y === w.agentY) row += (DIR_CHAR[w.agentDir] as string).repeat(2);
      else if (code === -1) row += '  ';
      else if (code === -2) row += 'WG';
      else {
        const o = w.obj(code);
        const state = o.type === 'door' ? doorState(o) : null;
        if (state === 'open') row += '__';
        else row += (state === 'locked' ? 'L' : OBJ_CHAR[o.type]) + o.color[0]!.toUpperCase();
      }
    }
    rows.push(row);
  }
  return rows;
}
