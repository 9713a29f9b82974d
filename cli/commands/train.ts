/**
 * `actorgym train`: its options and help. What it does (TensorFlow.js, the training system) is in
 * train-action.ts, imported when the command runs.
 */
import { Option, type Command } from 'commander';
import { presets } from '../../actors/training/presets.ts';
import { ALGORITHMS } from '../../algorithms/algorithm-names.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { addAsyncOptions, type AsyncCliOptions } from '../async-options.ts';
import { addMaxAbortedOption } from '../max-aborted.ts';
import { addRemoteOptions, type RemoteFlags } from '../remote-options.ts';
import { nonNegativeInt, nonNegativeNumber, positiveInt, positiveNumber } from '../output.ts';
import { addModelOptions, type ModelCliOptions } from '../model-options.ts';
import { addPolicyOptions, type PolicyCliOptions } from '../policy-options.ts';
import { addDashboardOptions, type DashboardCliOptions } from './dashboard.ts';
import { stopHelpText } from '../stop-help.ts';

export interface TrainCliOptions extends DashboardCliOptions, RemoteFlags, ModelCliOptions, PolicyCliOptions, AsyncCliOptions {
  env: string;
  steps?: number;
  preset?: string;
  out?: string;
  resume?: string;
  init?: string;
  backend: BackendPreference;
  learnerThreads?: string;
  maxMinutes?: number;
  json?: boolean;
  token?: string;
  envTimeout: number;
  maxAborted: number;
  // Run configuration (learner/training-config.ts); only the ones given on the command line are passed on.
  algo?: string;
  schedule?: string;
  seed?: number;
  tasksPerStep?: number;
  groupSize?: number;
  concurrency?: number;
  lr?: number;
  epochs?: number;
  minibatch?: number;
  temperature?: number;
  klCoef?: number;
  entropyCoef?: number;
  checkpointEvery?: number;
  stdNorm?: boolean;
  evalEpisodes?: number;
  evalTemperature?: number;
  evalHorizon?: number;
}

export function registerTrain(program: Command): void {
  const command = addDashboardOptions(program.command('train'))
    .description('train an agent with RL on an env (our transformer, or a Hugging Face model with --policy hf:DIR); checkpoints, metrics.jsonl and trajectories go to --out')
    .option('--env <id>', 'environment id', 'babyai')
    .addOption(new Option('--algo <algo>', `algorithm: ${ALGORITHMS.join(' | ')} (default grpo)`))
    .option('--schedule <schedule>', 'horizon schedule: fixed:N, scaling:[h0,h1,…]@STEPS or adaptive:min=A,max=B[,step=S,window=W,trunc=T] (docs/curriculum.md; default scaling:[6,13,20]@100)')
    .option('--steps <n>', 'learner steps of the whole run (a resumed run continues up to this step); required unless --preset gives it', positiveInt('--steps'))
    .option('--preset <name>', `start from a named configuration (${Object.keys(presets).join(', ')}); other options override it`)
    .option('--out <dir>', 'run directory (default runs/<timestamp>, or the resumed run\'s); refused when it holds another run\'s checkpoint')
    .option('--resume <dir>', 'continue a run exactly from its checkpoint (a run directory or a checkpoint directory)')
    .option('--init <dir>', 'start a new run from a checkpoint\'s weights (e.g. `sft`\'s), which are also the KL reference; the model and input settings are the checkpoint\'s')
    .option('--max-minutes <m>', 'time budget: end the run (checkpoint, test evaluation) after the step that reaches this many minutes of training, even before --steps', positiveNumber('--max-minutes'))
    .option('--seed <n>', 'run seed (default 0)', nonNegativeInt('--seed'))
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .addOption(new Option('--learner-threads <n>', 'threads for the learner\'s gradients (default: 2 on wasm with two or more cores, else 1)').choices(['1', '2']))
    .option('--tasks-per-step <n>', 'tasks per learner step (default 16)', positiveInt('--tasks-per-step'))
    .option('--group-size <n>', 'rollouts per task, G (default 4)', positiveInt('--group-size'))
    .option('--concurrency <n>', 'episodes running at once (default 64)', positiveInt('--concurrency'))
    .option('--lr <lr>', 'Adam learning rate (default 1e-3; 1e-4 with --policy hf:DIR)', positiveNumber('--lr'))
    .option('--epochs <n>', 'passes over each step\'s rollouts (default 1)', positiveInt('--epochs'))
    .option('--minibatch <n>', 'windows per Adam step (default 64)', positiveInt('--minibatch'))
    .option('--temperature <t>', 'rollout sampling temperature (default 1)', positiveNumber('--temperature'))
    .option('--kl-coef <c>', 'k3 KL coefficient to the initial policy (default 1e-3)', nonNegativeNumber('--kl-coef'))
    .option('--entropy-coef <c>', 'entropy bonus (default 1e-3)', nonNegativeNumber('--entropy-coef'))
    .option('--checkpoint-every <k>', 'checkpoint every K steps, 0 = only at the end (default 25)', nonNegativeInt('--checkpoint-every'))
    .option('--no-std-norm', 'GRPO without dividing by the group std (Dr. GRPO)')
    .option('--eval-episodes <n>', 'test episodes evaluated at the end, 0 = none (default: the whole test split)', nonNegativeInt('--eval-episodes'))
    .option('--eval-temperature <t>', 'evaluation temperature, 0 = greedy (default 1)', nonNegativeNumber('--eval-temperature'))
    .option('--eval-horizon <n>', 'evaluation horizon (default: the env default)', positiveInt('--eval-horizon'))
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--env-timeout <ms>', 'deadline of each env call, the remote connection\'s start-up calls included', positiveInt('--env-timeout'), 30_000)
    .option('--json', 'print one JSON object with the summary on stdout');
  addPolicyOptions(command);
  addModelOptions(command);
  addRemoteOptions(command);
  addAsyncOptions(command);
  addMaxAbortedOption(command, 'test episodes of the final evaluation');
  command.addHelpText('after', `
${stopHelpText('training')}
--out on a directory that already holds a run is refused (exit 1): the error names the step
found and the --resume command that continues it.\n`);
  command.action(async (options: TrainCliOptions, cmd: Command) => (await import('./train-action.ts')).runTrain(options, cmd));
}
