/**
 * `actorgym collect`: runs an agent on a split and writes its episodes as demonstrations, in our
 * JSON lines or AgentGym's AgentTraj (demos), for `actorgym sft` or a trainer elsewhere.
 * Its options and help; what it does is in collect-action.ts, imported when the command runs.
 */
import { Option, type Command } from 'commander';
import { DEMO_FORMATS, type DemoFileFormat } from '../../demos/demo-records.ts';
import type { Split } from '../../envs/contract.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { agentHelpText, agentOptionDescription, parseAgentSpec } from '../agent-spec.ts';
import { addHfAgentOptions, addLlmOptions, type HfAgentFlags, type LlmFlags } from '../llm-options.ts';
import { nonNegativeInt, positiveInt } from '../output.ts';
import { addRemoteOptions, type RemoteFlags } from '../remote-options.ts';
import { pickOption, shuffleOption, splitOption } from '../split-option.ts';
import { stopHelpText } from '../stop-help.ts';

export interface CollectOptions extends LlmFlags, HfAgentFlags, RemoteFlags {
  env: string;
  agent: string;
  split: Split;
  episodes?: number;
  pick: 'stratified' | 'first';
  shuffle?: boolean;
  samples: number;
  seed: number;
  horizon?: number;
  concurrency: number;
  onlySuccess?: boolean;
  format: DemoFileFormat | 'tokens';
  out: string;
  token?: string;
  maxRetries: number;
  envTimeout: number;
  backend: BackendPreference;
  json?: boolean;
}

const EXAMPLES = `
Each demo is one episode: every turn's observation, the env's action list, the action and its
reward, with the outcome. Episodes aborted by infrastructure (after --max-retries) are not written.
The same command and --seed write the same file, in task then sample order.

Formats:
  actorgym   JSON lines, one demo per line (what \`actorgym sft\` reads best)
  agenttraj  AgentGym's SFT items {item_id, conversations}: a JSON list, or JSON lines when
             --out ends in .jsonl; item_id is <env>_<data_idx> as \`actorgym serve --agentgym-http\` numbers tasks
  tokens     one token record per line for a trainer (ids, loss mask, log-probs, rewards per turn, GRPO group =
             the task; docs/token-records.md); needs checkpoint:DIR, hf:DIR or openai:MODEL --tokenizer hf:DIR

Examples:
  actorgym collect --env babyai --agent oracle --out babyai-oracle.jsonl
  actorgym collect --env textcraft --agent checkpoint:runs/tc --samples 4 --only-success --out tc.jsonl
  actorgym collect --env sciworld --agent oracle --episodes 100 --format agenttraj --out sciworld.json`;

export function registerCollect(program: Command): void {
  const command = program
    .command('collect')
    .description('run an agent and write its episodes as demonstrations for `sft` (our JSON lines or AgentGym\'s AgentTraj)')
    .requiredOption('--env <id>', 'environment id (see `actorgym envs`)')
    .option('--agent <agent>', agentOptionDescription(), parseAgentSpec, 'oracle')
    .addOption(splitOption('train'))
    .option('--episodes <n>', 'tasks of the split (default: all of them, in order; fewer are taken round-robin over the task categories; at most the split size, --samples gives more episodes per task)', positiveInt('--episodes'))
    .addOption(pickOption('--episodes'))
    .addOption(shuffleOption())
    .option('--samples <k>', 'episodes per task', positiveInt('--samples'), 1)
    .option('--seed <n>', 'run seed: the same seed writes the same demos', nonNegativeInt('--seed'), 0)
    .option('--horizon <turns>', 'max agent turns per episode (default: the env default)', positiveInt('--horizon'))
    .option('--concurrency <n>', 'episodes running at once', positiveInt('--concurrency'), 16)
    .option('--only-success', 'write successful episodes only')
    .addOption(new Option('--format <format>', 'file format').choices([...DEMO_FORMATS, 'tokens']).default('actorgym'))
    .requiredOption('--out <file>', 'file to write (written whole at the end, or not at all)')
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--max-retries <n>', 'retries of an episode aborted by infrastructure', nonNegativeInt('--max-retries'), 1)
    .option('--env-timeout <ms>', 'deadline of each env call', positiveInt('--env-timeout'), 30_000)
    .addOption(new Option('--backend <backend>', 'tfjs backend of a checkpoint or hf: agent').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--json', 'print one JSON object with the counts on stdout')
    .addHelpText('after', `${EXAMPLES}\n${agentHelpText()}\n${stopHelpText('collect')}\n`);
  addRemoteOptions(command);
  addHfAgentOptions(command);
  addLlmOptions(command).action(async (options: CollectOptions) => (await import('./collect-action.ts')).runCollect(options));
}
