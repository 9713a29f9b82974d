/**
 * The hook a training run needs to collect through a producer other than its own local one
 * (issue 37: `actorgym learner`): once the run is open it calls the factory with what a remote
 * producer needs — the config, our transformer's tokenizer, the version it starts from and the
 * model's `exportWeights` — collects every step through the returned producer, calls `publish`
 * after each of its own publishes, and `close` when the run ends.
 */
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { TokenizerJSON } from '../../policy/tokenizer.ts';
import type { NamedWeights, Producer } from '../buffer/producer.ts';

export interface TrainingRunInfo {
  readonly config: TrainingConfig;
  /** Our transformer's tokenizer; undefined for a Hugging Face model. */
  readonly tokenizer: TokenizerJSON | undefined;
  /** The policy version the run starts from (0, or a resumed run's). */
  readonly policyVersion: number;
  readonly exportWeights: (version: number) => Promise<NamedWeights>;
}

export interface TrainingProducer {
  readonly producer: Producer;
  /** Called after the run's model published `version`. */
  publish(version: number): Promise<void>;
  close(): Promise<void>;
}

export type TrainingProducerFactory = (run: TrainingRunInfo) => Promise<TrainingProducer>;
