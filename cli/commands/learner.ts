/**
 * `actorgym learner`: its options and help — every option of `train` (cloned from it, so the two
 * never drift) and the learner server's own. What it does is in learner-action.ts, imported when
 * the command runs.
 */
import type { Command } from 'commander';
import { EVENT_FRAME_BUDGET } from '../../servers/event-server/limits.ts';
import { LEARNER_FRAME_BUDGET, LEARNER_PROTOCOL } from '../../transport/learner-wire/limits.ts';
import { SERVER_DRAIN_TIMEOUT_MS } from '../../transport/wire/limits.ts';
import { frameBudgetOption } from '../frame-budget-option.ts';
import { nonNegativeInt, port } from '../output.ts';
import type { TrainCliOptions } from './train.ts';
import { stopHelpText } from '../stop-help.ts';

export interface LearnerCliOptions extends TrainCliOptions {
  port: number;
  host: string;
  workerToken?: string;
  drainTimeout: number;
  workerLogJson?: boolean;
}

/** Default port of the learner server (the env server's default is 8100). */
export const DEFAULT_LEARNER_PORT = 8200;

/** Registers `learner`; `train` must be registered first (its options are cloned). */
export function registerLearner(program: Command): void {
  const train = program.commands.find((c) => c.name() === 'train');
  if (train === undefined) throw new Error('registerLearner: register `train` first; the learner takes its options');
  const command = program
    .command('learner')
    .description('train as `train` does, with the rollouts on workers (`actorgym worker --learner ws://host:PORT`) that connect to this learner over WebSockets (docs/distributed-training.md)')
    .option('--port <port>', `port the workers connect to (0 picks a free one)`, port, DEFAULT_LEARNER_PORT)
    .option('--host <host>', 'interface to listen on (0.0.0.0: every interface; then set --worker-token)', '127.0.0.1')
    .option('--worker-token <token>', 'bearer token every worker must present (default: --token or ACTORGYM_TOKEN)')
    .option('--drain-timeout <ms>', 'at the end of the run, how long workers may finish what they collect before the server closes', nonNegativeInt('--drain-timeout'), SERVER_DRAIN_TIMEOUT_MS)
    .option('--worker-log-json', 'one JSON line on stderr per worker event (joined, left, frame refused, groups handed out again)')
    .addOption(frameBudgetOption('the learner server (and --events-port, each its own budget)', undefined,
      ` (default ${LEARNER_FRAME_BUDGET.perSecond}; --events-port ${EVENT_FRAME_BUDGET.perSecond})`));
  // train's --frame-budget is its event stream's; the learner's above covers both servers.
  for (const option of train.options) if (option.attributeName() !== 'frameBudget') command.addOption(option);
  command.addHelpText('after', `
The learner runs the learner, the buffer and the curriculum; each step's groups are split among
the connected workers (protocol v${LEARNER_PROTOCOL}), and work waits while none is connected. A worker
that leaves mid-step has its unfinished groups handed to another. After each learner step every
worker gets the new weights. Example, one learner and two worker machines:

  gpu-box$  actorgym learner --host 0.0.0.0 --port ${DEFAULT_LEARNER_PORT} --worker-token T --steps 200 --out runs/dist
  cpu-a$    actorgym worker --learner ws://gpu-box:${DEFAULT_LEARNER_PORT} --token T
  cpu-b$    actorgym worker --learner ws://gpu-box:${DEFAULT_LEARNER_PORT} --token T --remote ws://envs:8100

${stopHelpText('training')}\n`);
  command.action(async (options: LearnerCliOptions, cmd: Command) => (await import('./learner-action.ts')).runLearnerCommand(options, cmd));
}
