/**
 * The SciWorld oracle: each step it asks the task's family oracle for the intended action (read
 * from the world and the goal's progress), writes it with names the parser resolves uniquely,
 * and — when the env still finds it ambiguous (identical objects) — answers the number prompt
 * with the option that matches its intent.
 */
import type { Oracle } from '../contract.ts';
import type { SciWorldEnv } from './env.ts';
import { phrase, referents, sameAction, type Resolved } from './parser.ts';
import { referable, uniqueNames, validActions } from './valid-actions.ts';

export class SciWorldOracle implements Oracle {
  constructor(private readonly env: SciWorldEnv) {}

  async next(): Promise<string> {
    const { task, pending } = this.env.internalState();
    const intent = task.oracle();
    if (typeof intent === 'string') return intent;
    if (pending) {
      const index = pending.findIndex((p) => sameAction(p, intent));
      if (index >= 0) return String(index);
    }
    return listedForm(writeAction(this.env, intent), () => validActions(task.world));
  }
}

/**
 * A connection is symmetric, but the action list names each pair in one order: the oracle uses
 * the listed order, so it acts in the grammar a policy with constrained decoding has (its demos
 * can be cloned, actors/sft). Any other action is returned as written.
 */
function listedForm(action: string, listed: () => readonly string[]): string {
  const m = /^connect (.+) to (.+)$/.exec(action);
  if (m === null) return action;
  const actions = listed();
  const swapped = `connect ${m[2]} to ${m[1]}`;
  return !actions.includes(action) && actions.includes(swapped) ? swapped : action;
}

/** The shortest way to write `action` that the parser reads as exactly that action, if any. */
export function writeAction(env: SciWorldEnv, action: Resolved): string {
  const { task } = env.internalState();
  const names = uniqueNames(task.world, referable(task.world));
  return phrase(action, (e) => names.get(e) ?? (referents(task.world, e)[0] as string));
}
