/**
 * The learner server as a training run's producer: `createRemoteProducer` starts the server with
 * the run's current weights and returns the producer to collect through and the `publish` to call
 * after each learner step (it exports the new version's weights and broadcasts them). It takes
 * plain functions, not the run's model, so this room needs nothing of actors/; the command line
 * (cli/commands/learner-action.ts) hands it `RunModel.exportWeights`.
 */
import type { RunSpec } from '../../transport/learner-wire/learner-schemas.ts';
import type { WeightsPayload } from '../../transport/learner-wire/weights-frame.ts';
import { startLearnerServer, type LearnerServerHandle, type LearnerServerOptions } from './learner-server.ts';
import type { RemoteProducer } from './remote-producer.ts';

export interface CreateRemoteProducerOptions extends Omit<LearnerServerOptions, 'weights' | 'run'> {
  readonly run: RunSpec;
  /** The version workers start from (0, or a resumed run's). */
  readonly version: number;
  /** A float32 copy of the policy's weights as `version` (RunModel.exportWeights). */
  readonly exportWeights: (version: number) => Promise<WeightsPayload>;
}

export interface RemoteTraining {
  /** The producer the training system collects through (actors/buffer/producer.ts `Producer`). */
  readonly producer: RemoteProducer;
  readonly server: LearnerServerHandle;
  /** After the learner published `version` to its own policy: export its weights and broadcast them. */
  publish(version: number): Promise<void>;
  /** Drains the server (workers are told; assignments in flight get `timeoutMs`), then closes it. */
  close(timeoutMs?: number): Promise<void>;
}

export async function createRemoteProducer(options: CreateRemoteProducerOptions): Promise<RemoteTraining> {
  const { exportWeights, version, ...rest } = options;
  const server = await startLearnerServer({ ...rest, weights: await exportWeights(version) });
  return {
    producer: server.producer,
    server,
    publish: async (next) => server.publish(await exportWeights(next)),
    close: (timeoutMs) => server.drain(timeoutMs ?? 0),
  };
}
