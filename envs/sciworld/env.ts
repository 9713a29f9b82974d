/**
 * The SciWorld environment behind the actorgym contract. Reset shows the task description and the
 * room (`{description}\n{look around}`), as AgentGym's SciWorld client does; each step answers
 * in ScienceWorld's words. `info.score` is ScienceWorld's 0–100 score; the reward of a step is
 * the change in score / 100, so an episode's rewards sum to its final score / 100 (in [0, 1],
 * like BabyAI's), and a failed task ends at 0.
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepInfo, type StepResult } from '../contract.ts';
import { execute } from './actions.ts';
import { lookAround } from './describe.ts';
import { ambiguityPrompt, parse, type Resolved } from './parser.ts';
import type { SciTask } from './task.ts';
import { buildTask } from './tasks.ts';
import { Terminal } from './thing.ts';
import { validActions } from './valid-actions.ts';

export const NO_MATCH = 'No known action matches that input.';

export class SciWorldEnv implements Env {
  private task: SciTask | null = null;
  private pending: readonly Resolved[] | null = null;
  private over = false;
  private closed = false;

  constructor(readonly spec: EnvSpec) {}

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.assertOpen();
    // Like BabyAI here, the task id fixes the whole episode; the seed is accepted and unused,
    // since nothing inside a SciWorld episode is random.
    this.task = buildTask(options.taskId);
    this.pending = null;
    this.over = false;
    const t = this.task;
    return {
      observation: `${t.description}\n${lookAround(t.world)}`,
      info: { ...this.info(false), taskName: t.taskName, variation: t.variation, taskDescription: t.description },
    };
  }

  async step(action: string): Promise<StepResult> {
    const task = this.current();
    if (this.over) throw new EnvError('ENV_NOT_RESET', 'the episode is over; call reset() first');
    if (typeof action !== 'string') throw new EnvError('PROTOCOL_ERROR', 'an action must be a string');
    const before = task.goal.card.score;
    let resolved: Resolved | null = null;
    const text = action.trim();
    const choices = this.pending;
    this.pending = null;
    if (choices && /^\d+$/.test(text)) {
      resolved = choices[Number(text)] ?? null;
      if (!resolved) return this.result(NO_MATCH, before, true);
    } else {
      const parsed = parse(task.world, text);
      if (parsed.kind === 'none') return this.result(NO_MATCH, before, true);
      if (parsed.kind === 'many') {
        this.pending = parsed.actions;
        return this.result(ambiguityPrompt(task.world, parsed.actions), before, false);
      }
      resolved = parsed.action;
    }
    const [message, invalid] = this.run(task, resolved);
    return this.result(message, before, invalid);
  }

  private run(task: SciTask, action: Resolved): [string, boolean] {
    const world = task.world;
    let message: string;
    let invalid = false;
    if (action.id === 'focus') {
      const [target] = action.args;
      const thing = target instanceof Terminal ? target.owner : target!;
      task.goal.focus(world, thing);
      message = `You focus on the ${thing.name}.`;
      world.tick();
    } else if (action.id === 'task') {
      message = task.description;
      world.tick();
    } else {
      const outcome = execute(world, action);
      message = outcome.message;
      invalid = !outcome.ok;
      if (outcome.ok) task.goal.acted?.(world, action);
      world.tick(outcome.ticks);
    }
    task.goal.update(world);
    return [message, invalid];
  }

  private result(observation: string, before: number, invalid: boolean): StepResult {
    const task = this.task as SciTask;
    const card = task.goal.card;
    const terminated = card.status !== 'running';
    this.over = terminated;
    return {
      observation,
      reward: (card.score - before) / 100,
      terminated,
      truncated: false,
      info: this.info(invalid),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.task = null;
  }

  /** The running task and any open ambiguity prompt, for the oracle (same process only). */
  internalState(): { task: SciTask; pending: readonly Resolved[] | null } {
    return { task: this.current(), pending: this.pending };
  }

  private current(): SciTask {
    this.assertOpen();
    if (!this.task) throw new EnvError('ENV_NOT_RESET', 'call reset() before step()');
    return this.task;
  }

  private assertOpen(): void {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'the env is closed');
  }

  private info(invalidAction: boolean): StepInfo {
    const task = this.task as SciTask;
    const card = task.goal.card;
    const info: Record<string, StepInfo[string]> = { score: card.score, invalidAction, subgoals: card.list() };
    if (card.status !== 'running') info['success'] = card.status === 'success';
    else info['availableActions'] = validActions(task.world);
    return info as StepInfo;
  }
}
