/**
 * What `actorgym learner` does (its options are in learner.ts): a `train` run whose steps are
 * collected by the learner server's remote producer (servers/learner-server/remote-training.ts)
 * instead of in this process, handed to the training system as a `TrainingProducerFactory`
 * (actors/worker/training-producer.ts).
 */
import type { Command } from 'commander';
import { runSpecOf } from '../../actors/worker/run-spec.ts';
import type { TrainingProducerFactory } from '../../actors/worker/training-producer.ts';
import { createRemoteProducer } from '../../servers/learner-server/remote-training.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { frameBudgetOf } from '../frame-budget-option.ts';
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import type { LearnerCliOptions } from './learner.ts';

/** The factory the training system calls once the run is open: starts the learner server with the run's weights. */
export function learnerProducer(options: LearnerCliOptions, onListening: (url: string) => void): TrainingProducerFactory {
  const token = options.workerToken ?? options.token ?? process.env.ACTORGYM_TOKEN;
  return async (run) => {
    const remote = await createRemoteProducer({
      port: options.port, host: options.host, run: runSpecOf(run.config, run.tokenizer), version: run.policyVersion,
      exportWeights: run.exportWeights, log: createOpsLog({ server: 'learner', enabled: options.workerLogJson === true, secrets: [token] }),
      ...(token ? { token } : {}),
      ...(options.frameBudget !== undefined ? { frameBudget: frameBudgetOf(options.frameBudget) } : {}),
    });
    onListening(remote.server.url);
    return { producer: remote.producer, publish: remote.publish, close: () => remote.close(options.drainTimeout) };
  };
}

export async function runLearnerCommand(options: LearnerCliOptions, command: Command): Promise<void> {
  const token = options.workerToken ?? options.token ?? process.env.ACTORGYM_TOKEN;
  if (!token && !isLoopbackHost(options.host)) {
    process.stderr.write(`actorgym learner: warning: listening on ${options.host} without --worker-token; anyone who can reach this machine can join as a worker and feed the learner\n`);
  }
  // On stderr: stdout stays the summary (`--json`). Scripts and tests wait for this line; keep its shape.
  const producer = learnerProducer(options, (url) => process.stderr.write(`actorgym learner: listening for workers on ${url}\n`));
  const { runTrain } = await import('./train-action.ts');
  // --frame-budget paces the learner server; it reaches the event stream only when there is one.
  const { frameBudget, ...withoutBudget } = options;
  await runTrain(options.eventsPort === undefined || frameBudget === undefined ? withoutBudget : options, command, { producer });
}
