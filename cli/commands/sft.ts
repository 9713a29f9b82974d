/**
 * `actorgym sft`: its options and help. What it does (TensorFlow.js, the SFT system) is in
 * sft-action.ts, imported when the command runs.
 */
import { Option, type Command } from 'commander';
import { presets } from '../../actors/training/presets.ts';
import { sftDefaults } from '../../actors/sft/sft-settings.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend-preference.ts';
import { addModelOptions, type ModelCliOptions } from '../model-options.ts';
import { addPolicyOptions, type PolicyCliOptions } from '../policy-options.ts';
import { nonNegativeInt, nonNegativeNumber, positiveInt, positiveNumber } from '../output.ts';
import { addDashboardOptions, type DashboardCliOptions } from './dashboard.ts';
import { stopHelpText } from '../stop-help.ts';

export interface SftCliOptions extends DashboardCliOptions, ModelCliOptions, PolicyCliOptions {
  env: string;
  demos: string[];
  out?: string;
  resume?: string;
  preset?: string;
  epochs?: number;
  lr?: number;
  minibatch?: number;
  validationShare?: number;
  evalEvery?: number;
  evalEpisodes?: number;
  evalTemperature?: number;
  evalHorizon?: number;
  includeFailures?: boolean;
  seed?: number;
  concurrency?: number;
  backend: BackendPreference;
  learnerThreads?: string;
  maxMinutes?: number;
  json?: boolean;
}

export function registerSft(program: Command): void {
  const command = addDashboardOptions(program.command('sft'))
    .description('supervised fine-tuning (behaviour cloning) of an agent (our transformer, or a Hugging Face model with --policy hf:DIR) on demonstrations from `collect` (or AgentTraj files); writes a checkpoint `train --init` and `eval --checkpoint` read')
    .option('--env <id>', 'environment id', 'babyai')
    .requiredOption('--demos <file>', 'demonstrations: JSON lines from `actorgym collect`, or AgentGym AgentTraj JSON/JSONL (repeatable)', (f: string, all: string[] = []) => [...all, f])
    .option('--out <dir>', 'run directory (default runs/<timestamp>, or the resumed run\'s); refused when it holds another run\'s checkpoint')
    .option('--resume <dir>', 'continue an SFT run from its checkpoint at the next epoch (the same demos and settings)')
    .option('--preset <name>', `take the model and context settings of a training preset (${Object.keys(presets).join(', ')}), so RL can continue from the checkpoint with the same preset`)
    .option('--epochs <n>', `passes over the demos (default ${sftDefaults.epochs})`, positiveInt('--epochs'))
    .option('--lr <lr>', `Adam learning rate (default ${sftDefaults.lr}; 1e-4 with --policy hf:DIR)`, positiveNumber('--lr'))
    .option('--minibatch <n>', `context windows per Adam step (default ${sftDefaults.minibatch})`, positiveInt('--minibatch'))
    .option('--validation-share <x>', `share of the demos' tasks held out for the validation loss (default ${sftDefaults.validationShare})`, nonNegativeNumber('--validation-share'))
    .option('--eval-every <k>', `test evaluation every K epochs, 0 = only at the end (default ${sftDefaults.evalEvery})`, nonNegativeInt('--eval-every'))
    .option('--eval-episodes <n>', 'test episodes per evaluation, 0 = none (default: the whole test split)', nonNegativeInt('--eval-episodes'))
    .option('--eval-temperature <t>', 'evaluation temperature, 0 = greedy (default 1)', nonNegativeNumber('--eval-temperature'))
    .option('--eval-horizon <n>', 'evaluation horizon (default: the env default)', positiveInt('--eval-horizon'))
    .option('--include-failures', 'also clone demos that did not succeed (default: successes only)')
    .option('--seed <n>', 'run seed: tokenizer corpus, initial weights, shuffles, validation split (default 0)', nonNegativeInt('--seed'))
    .option('--concurrency <n>', 'episodes at once in the test evaluation (default 64)', positiveInt('--concurrency'))
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .addOption(new Option('--learner-threads <n>', 'threads for the gradients (default: 2 on wasm with two or more cores, else 1)').choices(['1', '2']))
    .option('--max-minutes <m>', 'time budget: stop after the epoch that reaches it (checkpoint and test evaluation included)', positiveNumber('--max-minutes'))
    .option('--token <token>', 'bearer token the dashboard and --events-port require beyond loopback (--dashboard-host; or ACTORGYM_TOKEN)')
    .option('--json', 'print one JSON object with the summary on stdout');
  addPolicyOptions(command);
  addModelOptions(command);
  command.addHelpText('after', `
${stopHelpText('sft')}
--out on a directory that already holds a run is refused (the error names its epoch and the command that continues it).\n`);
  command.action(async (o: SftCliOptions, cmd: Command) => (await import('./sft-action.ts')).runSftCommand(o, cmd));
}
