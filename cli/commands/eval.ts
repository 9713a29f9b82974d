/**
 * `actorgym eval`: its options and help. What it does (and everything heavy it loads) is in
 * eval-action.ts, imported when the command runs.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { Split } from '../../envs/contract.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { agentHelpText, agentOptionDescription, parseAgentSpec } from '../agent-spec.ts';
import { addMaxAbortedOption } from '../max-aborted.ts';
import { addRemoteOptions, type RemoteFlags } from '../remote-options.ts';
import { addJudgeOption, type JudgeFlags } from '../judge-option.ts';
import { addHfAgentOptions, addLlmOptions, type HfAgentFlags, type LlmFlags } from '../llm-options.ts';
import { nonNegativeInt, positiveInt } from '../output.ts';
import { pickOption, shuffleOption, splitOption } from '../split-option.ts';
import { stopHelpText } from '../stop-help.ts';

export interface EvalOptions extends LlmFlags, HfAgentFlags, RemoteFlags, JudgeFlags {
  agent?: string;
  checkpoint?: string;
  env?: string;
  split: Split;
  samples: number;
  tasks?: number;
  pick: 'stratified' | 'first';
  shuffle?: boolean;
  out?: string;
  horizon?: number;
  seed: number;
  concurrency: number;
  maxRetries: number;
  envTimeout: number;
  backend: BackendPreference;
  maxAborted: number;
  token?: string;
  screenshots?: boolean;
  json?: boolean;
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

/** Where an evaluation goes when `--out` is not given. */
export const defaultEvalDir = (env: string, agent: string, split: Split, samples: number) => path.join('evals', `${env}-${slug(agent)}-${split}-n${samples}`);

export function registerEval(program: Command): void {
  const command = program
    .command('eval')
    .description('evaluate an agent on a split: Avg@n and Pass@k overall and per task category, written to --out; re-running the same command resumes it')
    .option('--agent <agent>', agentOptionDescription(), parseAgentSpec)
    .option('--checkpoint <dir>', 'shorthand for --agent checkpoint:DIR (then --env defaults to the env it trained on)')
    .option('--env <id>', 'environment id (see `actorgym envs`)')
    .addOption(splitOption('test'))
    .option('--samples <n>', 'n: episodes of each task (Avg@n, Pass@1..n)', positiveInt('--samples'), 1)
    .option('--tasks <n>', 'evaluate N tasks of the split (default: all, in order; fewer are taken round-robin over the task categories; at most the split size, use --samples for more episodes per task)', positiveInt('--tasks'))
    .addOption(pickOption('--tasks'))
    .addOption(shuffleOption())
    .option('--out <dir>', 'evaluation directory: config.json, episodes.jsonl, results.json, results.md (default: evals/<env>-<agent>-<split>-n<samples>)')
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--seed <n>', 'run seed; each (task, sample) derives its own, so a resumed run replays the same episodes', nonNegativeInt('--seed'), 0)
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 32)
    .option('--max-retries <n>', 'retries of a (task, sample) aborted by infrastructure; one still aborted is missing (never a failure), and re-running the command retries it', nonNegativeInt('--max-retries'), 2)
    .option('--env-timeout <ms>', 'deadline of each env call, the remote connection\'s start-up calls included', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint or hf: agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--screenshots', 'web env only: keep a JPEG of the page at every turn in <out>/screenshots/<episode>/, shown by `actorgym dashboard --run <out>`')
    .option('--json', 'print the results.json object on stdout')
    .addHelpText('after', `${agentHelpText()}
${stopHelpText('eval')}\n`);
  addRemoteOptions(command);
  addJudgeOption(command);
  addMaxAbortedOption(command, '(task, sample) pairs');
  addHfAgentOptions(command);
  addLlmOptions(command).action(async (options: EvalOptions) => (await import('./eval-action.ts')).runEval(options));
}
