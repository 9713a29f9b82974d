/**
 * The producer of this process (producer.ts): a step's groups collected through the rollout
 * system (actors/training/collect.ts), slots index·G … index·G + G − 1 with the seeds and episode
 * ids they have in the whole step, each group offered as soon as it is complete. Rollout workers
 * run the same class in their own process (actors/worker/).
 *
 * Weights change only between steps: a new version is staged (`stage`) and applied when the next
 * `produce` starts, never under a running collection, so every group it offers has one
 * `policyVersion`: the version of the weights its policy holds. Calls to `produce` may overlap
 * (asynchronous training runs several steps' collections at once, actors/buffer/step-feeder.ts):
 * they share the one policy, so staged weights are applied only by a `produce` that starts with no
 * other collection running; one that starts beside running collections samples with the weights
 * they hold (the step feeder starts it only if that version is recent enough).
 */
import type { EnvDefinition } from '../../envs/contract.ts';
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';
import type { RolloutSystem } from '../rollout-system.ts';
import { collectGroups, type CollectOptions } from '../training/collect.ts';
import type { RecordingAgent } from '../training/run-model.ts';
import type { Producer, StagedWeights, StepWork } from './producer.ts';

export type { StagedWeights } from './producer.ts';

/** What every collection of the producer shares: seed, tasks per step, G, concurrency, retries, deadlines, events. */
export type CollectSettings = Omit<CollectOptions, 'env' | 'policy' | 'step' | 'horizon' | 'groups' | 'producer' | 'collection' | 'signal' | 'onSystem'>;

export interface LocalProducerOptions {
  readonly env: EnvDefinition;
  /** What the rollouts decode with; its `release` hands out each episode's token record. */
  readonly policy: RecordingAgent;
  readonly collect: CollectSettings;
  /** The groups' `producer`. Default `local`. */
  readonly name?: string;
}

export class LocalProducer implements Producer {
  readonly name: string;
  /** The latest step's rollout system while one runs (a stop cancels it; each `produce`'s signal cancels its own). */
  rollout: RolloutSystem | undefined;
  readonly #o: LocalProducerOptions;
  #staged: StagedWeights | undefined;
  /** Collections running now: staged weights wait until there are none. */
  #running = 0;
  /** Collections started per step, so a re-collection's episode ids differ from the first's. */
  readonly #collections = new Map<number, number>();

  constructor(options: LocalProducerOptions) {
    this.#o = options;
    this.name = options.name ?? 'local';
  }

  /** The version of the weights the policy samples with now. */
  get version(): number {
    return this.#o.policy.version;
  }

  /** The newest staged version, else the current one: what the next step will sample with. */
  get nextVersion(): number {
    return this.#staged?.version ?? this.version;
  }

  /** Weights the next `produce` applies before it starts; a later stage replaces an unapplied one. */
  stage(weights: StagedWeights): void {
    this.#staged?.discard?.();
    this.#staged = weights;
  }

  /** Frees staged weights never applied (the run is over). */
  dispose(): void {
    this.#staged?.discard?.();
    this.#staged = undefined;
  }

  /** Collections running now (the step feeder's tests read it). */
  get running(): number {
    return this.#running;
  }

  async produce(work: StepWork, offer: (group: TrajectoryGroup) => void, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    if (this.#running === 0) {
      const staged = this.#staged;
      this.#staged = undefined;
      staged?.apply();
    }
    const collection = this.#collections.get(work.step) ?? 0;
    this.#collections.set(work.step, collection + 1);
    for (const step of this.#collections.keys()) if (step < work.step - 64) this.#collections.delete(step);
    let mine: RolloutSystem | undefined;
    const stop = (): void => mine?.stop(`producer ${this.name} stopped`);
    signal.addEventListener('abort', stop);
    this.#running += 1;
    try {
      await collectGroups({
        ...this.#o.collect, env: this.#o.env, policy: this.#o.policy, step: work.step, horizon: work.horizon,
        groups: work.groups, producer: this.name, collection, signal,
        onSystem: (system) => { mine = system; this.rollout = system; },
      }, offer);
    } finally {
      this.#running -= 1;
      signal.removeEventListener('abort', stop);
    }
  }
}
