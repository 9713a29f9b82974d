/**
 * `actorgym worker`: its options and help. A rollout worker of a learner (`actorgym learner`):
 * what it does is in worker-action.ts, imported when the command runs.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { WORKER_RECONNECT_BACKOFF } from '../../transport/learner-wire/limits.ts';
import { addRemoteOptions, type RemoteFlags } from '../remote-options.ts';
import { positiveInt } from '../output.ts';

export interface WorkerCliOptions extends RemoteFlags {
  learner: string;
  env: string;
  name?: string;
  token?: string;
  envToken?: string;
  policy?: string;
  backend: BackendPreference;
  concurrency?: number;
  envTimeout: number;
  logJson?: boolean;
}

/** `ws://` or `wss://` with a host, checked as the command line is parsed. */
export function parseLearnerUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError(`--learner must be a ws:// or wss:// URL (e.g. ws://gpu-box:8200), got "${text}"`);
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new InvalidArgumentError(`--learner must be a ws:// or wss:// URL, got "${text}"`);
  return text;
}

const hfFolder = (text: string): string => {
  if (!text.startsWith('hf:') || text.length <= 3) throw new InvalidArgumentError(`--policy takes hf:DIR (the learner's Hugging Face base model folder on this machine), got "${text}"`);
  return text;
};

export function registerWorker(program: Command): void {
  const command = program
    .command('worker')
    .description('run rollouts for a learner (`actorgym learner`): get its policy and weights, collect the groups it assigns, stream them back (docs/distributed-training.md)')
    .requiredOption('--learner <url>', 'the learner server, e.g. ws://gpu-box:8200', parseLearnerUrl)
    .option('--env <id>', "environment id; must be the learner's", 'babyai')
    .option('--name <name>', 'this worker\'s name in the learner\'s logs and on its groups (default <hostname>-<pid>)')
    .option('--token <token>', "the learner's bearer token (or ACTORGYM_TOKEN)")
    .option('--env-token <token>', 'bearer token of the --remote env servers (default: --token)')
    .option('--policy <hf:DIR>', "a Hugging Face run: the learner's base model folder on this machine (default: the learner's path)", hfFolder)
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .option('--concurrency <n>', "episodes running at once (default: the learner's --concurrency)", positiveInt('--concurrency'))
    .option('--env-timeout <ms>', 'deadline of each env call', positiveInt('--env-timeout'), 30_000)
    .option('--log-json', 'one JSON line on stderr per worker event (welcome, version applied, learner lost) instead of a text line');
  addRemoteOptions(command);
  command.addHelpText('after', `
The worker builds its policy from the learner's welcome and samples with the learner's weights,
applying each new version between assignments. When the learner goes away it pauses and
reconnects (backoff ${WORKER_RECONNECT_BACKOFF.initialMs} ms doubling to ${WORKER_RECONNECT_BACKOFF.maxMs / 1000} s, with jitter); a refused token or another
env ends it with an error. Ctrl-C (SIGINT) or SIGTERM stops it; what it was collecting goes to
another worker.\n`);
  command.action(async (options: WorkerCliOptions) => (await import('./worker-action.ts')).runWorkerCommand(options));
}
