/**
 * The `actorgym` command. Each subcommand lives in `commands/`: `X.ts` holds its options and help
 * and loads nothing heavy, `X-action.ts` what it does, imported only when it runs, so `--help`,
 * `envs` and a mistyped command answer without loading TensorFlow.js. Logic a library user would
 * also need lives in the library folders, not here.
 */
import { Command } from 'commander';
import { registerBench } from './commands/bench.ts';
import { registerCollect } from './commands/collect.ts';
import { registerDashboard } from './commands/dashboard.ts';
import { registerEnvs } from './commands/envs.ts';
import { registerExperiment } from './commands/experiment.ts';
import { registerExport } from './commands/export.ts';
import { registerEval } from './commands/eval.ts';
import { registerRollout } from './commands/rollout.ts';
import { registerRolloutServer } from './commands/rollout-server.ts';
import { registerServe } from './commands/serve.ts';
import { registerServePolicy } from './commands/serve-policy.ts';
import { registerLearner } from './commands/learner.ts';
import { registerSft } from './commands/sft.ts';
import { registerStart } from './commands/start.ts';
import { registerTrain } from './commands/train.ts';
import { registerWorker } from './commands/worker.ts';
import { errorLine, reportFailure } from './output.ts';

const program = new Command('actorgym')
  .description('Train and evaluate LLM-style agents on multi-turn text environments with reinforcement learning')
  .version('0.1.0')
  // Commander's own errors (unknown command, bad option) carry the CLI's one error prefix too;
  // subcommands inherit this when they are created below.
  .configureOutput({ outputError: (text, write) => write(errorLine(text)) })
  .showHelpAfterError('(run with --help for usage)')
  .showSuggestionAfterError(true)
  .addHelpText('after', '\nRun `actorgym <command> --help` for a command\'s options. `npm start` runs `actorgym start`.');

registerStart(program);
registerEnvs(program);
registerRollout(program);
registerRolloutServer(program);
registerServe(program);
registerServePolicy(program);
registerTrain(program);
registerLearner(program);
registerWorker(program);
registerCollect(program);
registerSft(program);
registerEval(program);
registerExperiment(program);
registerExport(program);
registerBench(program);
registerDashboard(program);

try {
  // No command is a request for help, not for a default job: nothing heavy starts by accident.
  if (process.argv.length <= 2) program.help();
  await program.parseAsync(process.argv);
} catch (error) {
  reportFailure(error);
}
