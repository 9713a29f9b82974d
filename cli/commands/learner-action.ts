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
import { isLoopbackHost } from '../../transport/wire/origin.ts';
import type { LearnerCliOptions } from './learner.ts';

/** The factory the training system calls once the run is open: starts the learner server with the run's weights. */
export function learnerProducer(options: LearnerCliOptions, onListening: (url: string) => void): TrainingProducerFactory {
  const token = options.workerToken ?? options.token ?? process.env.ACTORGYM_TOKEN;
  return async (run) => {
    const remote = await createRemoteProducer({
      port: options.port, host: options.host, run: runSpecOf(run.config, run.tokenizer), version: run.policyVersion,
      exportWeights: run.exportWeights, log: createOpsLog({ server: 'learner', enabled: options.workerLogJson === true }),
      ...(token ? { token } : {}),
    });
    onListening(remote.server.url);
    return { producer: remote.producer, publish: remote.publish, close: () => remote.close(options.drainTimeout) };
  };
}

/**
 * True when the training system takes a producer factory (`TrainingOptions.producer`); until the
 * hook is in (see docs/distributed-training.md#status), the learner refuses to run rather than
 * train in this process under the learner's name.
 */
async function trainingTakesProducer(): Promise<boolean> {
  const module: object = await import('../../actors/training/training-options.ts');
  return 'TRAINING_PRODUCER_HOOK' in module;
}

export async function runLearnerCommand(options: LearnerCliOptions, command: Command): Promise<void> {
  if (!(await trainingTakesProducer())) {
    throw new Error('this build\'s training system takes no remote producer yet (TrainingOptions.producer, issue 37); `actorgym learner` cannot run');
  }
  const token = options.workerToken ?? options.token ?? process.env.ACTORGYM_TOKEN;
  if (!token && !isLoopbackHost(options.host)) {
    process.stderr.write(`actorgym learner: warning: listening on ${options.host} without --worker-token; anyone who can reach this machine can join as a worker and feed the learner\n`);
  }
  // On stderr: stdout stays the summary (`--json`). Scripts and tests wait for this line; keep its shape.
  const producer = learnerProducer(options, (url) => process.stderr.write(`actorgym learner: listening for workers on ${url}\n`));
  const { runTrain } = await import('./train-action.ts');
  await runTrain(options, command, { producer });
}
