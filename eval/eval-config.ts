/**
 * What an evaluation directory is an evaluation of (`DIR/config.json`). A resumed run must ask
 * for the same thing, or its episodes would be mixed with another evaluation's: the env, split,
 * agent, n, tasks, seed and horizon, and every agent option that changes what the agent does
 * (`options`, keyed by flag: `--temperature`, `--max-tokens`, `--base-url` …; see
 * cli/commands/eval-options.ts for the list).
 */
import type { Split } from '../envs/contract.ts';

/** An option's value as config.json keeps it; null when it was not given. */
export type OptionValue = string | number | boolean | null;

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
  /** The agent options that change results, by flag name (never a credential). */
  readonly options?: Readonly<Record<string, OptionValue>>;
}

const FIELDS = ['env', 'split', 'agent', 'n', 'tasks', 'seed', 'horizon', 'order', 'judge'] as const satisfies readonly (keyof EvalConfig)[];

/**
 * The fields that differ, as `name: stored → wanted`; empty when the two agree. A directory
 * written before agent options were kept (no `options`) is compared on the other fields only.
 */
export function configDifferences(stored: Readonly<Record<string, unknown>>, wanted: EvalConfig): string[] {
  const fields = FIELDS.filter((field) => stored[field] !== wanted[field]).map(
    (field) => `${field}: ${JSON.stringify(stored[field])} → ${JSON.stringify(wanted[field])}`,
  );
  const was = stored.options;
  if (typeof was !== 'object' || was === null) return fields;
  const old = was as Record<string, unknown>;
  const now = wanted.options ?? {};
  const names = [...new Set([...Object.keys(old), ...Object.keys(now)])].sort();
  const options = names
    .filter((name) => (old[name] ?? null) !== (now[name] ?? null))
    .map((name) => `${name}: ${JSON.stringify(old[name] ?? null)} → ${JSON.stringify(now[name] ?? null)}`);
  return [...fields, ...options];
}
