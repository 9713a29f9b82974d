/**
 * `actorgym rollout`: its options and help. What it does (and everything heavy it loads) is in
 * rollout-action.ts, imported when the command runs.
 */
import { Option, type Command } from 'commander';
import type { Split } from '../../envs/contract.ts';
import { agentHelpText, agentOptionDescription, parseAgentSpec } from '../agent-spec.ts';
import { addHfAgentOptions, addLlmOptions, type HfAgentFlags, type LlmFlags } from '../llm-options.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { nonNegativeInt, port, positiveInt } from '../output.ts';
import { addMaxAbortedOption } from '../max-aborted.ts';
import { addRemoteOptions, type RemoteFlags } from '../remote-options.ts';
import { addJudgeOption, type JudgeFlags } from '../judge-option.ts';
import { addEventsPortOptions, type EventsPortFlags } from '../events-port.ts';
import { pickOption, shuffleOption, splitOption } from '../split-option.ts';
import { stopHelpText } from '../stop-help.ts';

export interface RolloutOptions extends LlmFlags, HfAgentFlags, EventsPortFlags, RemoteFlags, JudgeFlags {
  env: string;
  agent: string;
  split: Split;
  episodes?: number;
  pick: 'stratified' | 'first';
  shuffle?: boolean;
  repeat?: boolean;
  concurrency: number;
  horizon?: number;
  schedule?: string;
  seed: number;
  token?: string;
  eventsPort?: number;
  maxRetries: number;
  maxAborted: number;
  envTimeout: number;
  backend: BackendPreference;
  json?: boolean;
  format?: 'tokens';
  out?: string;
}

export function registerRollout(program: Command): void {
  const command = program
    .command('rollout')
    .description('run episodes of an env with an agent and report success rate, mean reward and turns')
    .requiredOption('--env <id>', 'environment id (see `actorgym envs`)')
    .option('--agent <agent>', agentOptionDescription(), parseAgentSpec, 'random')
    .addOption(splitOption('test'))
    .option('--episodes <n>', 'episodes to run, one per task (default: the whole split, in order; fewer take the tasks round-robin over the task categories; past its size needs --repeat)', positiveInt('--episodes'))
    .addOption(pickOption('--episodes'))
    .addOption(shuffleOption())
    .option('--repeat', 'with --episodes past the split size: run the tasks again, in order (said on stderr and as `repeated` in --json)')
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 16)
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--schedule <schedule>', 'horizon schedule instead of --horizon, e.g. fixed:20')
    .option('--seed <n>', 'run seed; the same seed replays the same run', nonNegativeInt('--seed'), 0)
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--events-port <port>', 'serve the live event stream over WebSocket on this port', port)
    .option('--max-retries <n>', 'retries of an episode aborted by infrastructure', nonNegativeInt('--max-retries'), 1)
    .option('--env-timeout <ms>', 'deadline of each env call, the remote connection\'s start-up calls included', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint or hf: agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--json', 'print one JSON object with the summary on stdout (with `llm` usage for an openai: agent, `servers` for --remote)')
    .addOption(new Option('--format <format>', 'write each scored episode to --out: tokens = one token record per line (ids, loss mask, log-probs, rewards per turn; docs/token-records.md)').choices(['tokens']))
    .option('--out <file>', 'with --format tokens: the JSON-lines file, written as episodes finish')
    .addHelpText('after', `${agentHelpText()}
${stopHelpText('rollout')}
Past --max-aborted the success rate is labelled "(scored only)", beside the share never scored.\n`);
  addRemoteOptions(command);
  addJudgeOption(command);
  addMaxAbortedOption(command);
  addEventsPortOptions(command);
  addHfAgentOptions(command);
  addLlmOptions(command).action(async (options: RolloutOptions) => (await import('./rollout-action.ts')).runRollout(options));
}
