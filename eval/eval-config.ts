/**
 * What an evaluation directory is an evaluation of (`DIR/config.json`). A resumed run must ask
 * for the same thing, or its episodes would be mixed with another evaluation's.
 */
import type { Split } from '../envs/contract.ts';

export interface EvalConfig {
  readonly env: string;
  readonly split: Split;
  /** The agent's name as summaries print it (`random`, `checkpoint@60`, `openai:MODEL`). */
  readonly agent: string;
  /** Samples per task. */
  readonly n: number;
  /** The first `tasks` tasks of the split are evaluated. */
  readonly tasks: number;
  readonly seed: number;
  readonly horizon: number;
  /** How the tasks were chosen when not the split's first `tasks` in order: `stratified`, `shuffled` or both (envs/pick-tasks.ts). */
  readonly order?: string;
  /** The LLM judge of free-text answers (`openai:MODEL`), when one graded them (web env `--judge`). */
  readonly judge?: string;
}

const FIELDS = ['env', 'split', 'agent', 'n', 'tasks', 'seed', 'horizon', 'order', 'judge'] as const satisfies readonly (keyof EvalConfig)[];

/** The fields that differ, as `name: stored → wanted`; empty when the two agree. */
export function configDifferences(stored: Readonly<Record<string, unknown>>, wanted: EvalConfig): string[] {
  return FIELDS.filter((field) => stored[field] !== wanted[field]).map(
    (field) => `${field}: ${JSON.stringify(stored[field])} → ${JSON.stringify(wanted[field])}`,
  );
}
