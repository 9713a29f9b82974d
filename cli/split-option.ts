/**
 * `--split` and `--shuffle`, the same on rollout, eval and collect. The split names are listed
 * here rather than imported from the env contract, so the commands' option modules stay light.
 */
import { Option } from 'commander';
import type { Split } from '../envs/contract.ts';

const SPLIT_NAMES = ['train', 'test', 'test-templates'] as const satisfies readonly Split[];

/** `--split <split>` with its choices and default. */
export function splitOption(defaultSplit: Split): Option {
  return new Option('--split <split>', 'task split: train, test (held-out entities) or test-templates (held-out templates; the web env has it)')
    .choices(SPLIT_NAMES)
    .default(defaultSplit);
}

/** `--pick`: which tasks a count below the split takes (envs/pick-tasks.ts). */
export function pickOption(count: string): Option {
  return new Option('--pick <how>', `with ${count} below the split size: stratified = round-robin over the task categories, first = the split's first N (as before issue 39)`)
    .choices(['stratified', 'first'])
    .default('stratified');
}

/** `--shuffle`: the tasks in an order shuffled by --seed (envs/pick-tasks.ts). */
export function shuffleOption(): Option {
  return new Option('--shuffle', 'take the tasks in an order shuffled by --seed (with a count below the split: a seeded pick, still round-robin over task categories)');
}
