/**
 * What a training run trains, behind one interface, so the learner's effects (collect, train,
 * publish, checkpoint) and the final evaluation do not care whether it is our transformer
 * (transformer-run-model.ts) or a Hugging Face causal LM (hf/hf-run-model.ts).
 */
import type { Observer } from 'rxjs';
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import type { CurriculumState } from '../../machines/curriculum.machine.ts';
import type { RecordedTrajectory } from '../../policy/observation-filter.ts';
import type { Policy, TokenTrajectory } from '../../policy/policy.ts';
import type { RolloutSummary, RunEvent } from '../../streams/events.ts';
import type { CollectedEpisode } from '../../learner/collected-step.ts';
import type { WriteCheckpointOptions } from '../../learner/checkpoint/write.ts';
import type { NamedWeights } from '../buffer/producer.ts';
import type { StagedWeights } from '../buffer/local-producer.ts';

/**
 * The policy the rollouts call: `release` hands out each episode's token record with its action
 * lists (`RecordedTrajectory`; `recordOf` reads it) and the policy keeps nothing after it, so the
 * record travels with the episode (the agent actor's `onRelease`) into its trajectory group.
 */
export interface RecordingAgent extends Policy {
  release(episodeId: string): RecordedTrajectory | TokenTrajectory | undefined;
}

/** A checkpoint's run state besides the model: where the run is. */
export interface RunState {
  readonly step: number;
  readonly policyVersion: number;
  readonly curriculum: CurriculumState;
  /** The configuration saved with the checkpoint (the run's; SFT's adds its settings). */
  readonly config: Readonly<Record<string, unknown>>;
  /** The run's seed: with the step, its whole RNG state. */
  readonly seed: number;
}

export interface EvaluationRequest {
  readonly env: EnvDefinition;
  readonly split: Split;
  readonly episodes?: number;
  readonly horizon: number;
  readonly temperature: number;
  readonly seed: number;
  readonly concurrency: number;
  readonly name: string;
  readonly events?: Partial<Observer<RunEvent>>;
  readonly signal?: AbortSignal;
}

export interface RunModel {
  /** Parameters of the model (all of them; `trainable` of them get gradients). */
  readonly parameters: number;
  readonly trainable: number;
  readonly vocabSize: number;
  /** What the rollouts decode with. */
  readonly policy: RecordingAgent;
  /**
   * One learner step on a step's episodes; its metrics. `staleness` (asynchronous training): per
   * episode, the learner's version minus the one that sampled it (learner/train-step.ts).
   */
  train(episodes: readonly CollectedEpisode[], step: number, staleness?: readonly number[]): Promise<Record<string, number>>;
  /**
   * The learner's weights as they are now, as `version`; the rollouts decode with them once
   * `apply` is called (the local producer applies a version between steps, never mid-step).
   */
  publish(version: number): StagedWeights;
  /**
   * A float32 copy of the weights the rollouts decode with (the trained ones: our transformer's
   * every parameter, a Hugging Face model's LoRA adapters or, fine-tuned in full, every weight),
   * as version `version`: what the learner server broadcasts to rollout workers (issue 37).
   */
  exportWeights(version: number): Promise<NamedWeights>;
  /**
   * A rollout worker's side of `exportWeights`: the rollouts decode with these weights, as
   * their version, from the next episode on. Call it between assignments (no episode open).
   */
  loadWeights(weights: NamedWeights): void;
  /** Writes the checkpoint of the run at `dir`; resolves with its path. */
  save(dir: string, state: RunState, options?: WriteCheckpointOptions): Promise<string>;
  /** The trained model on a split, through the rollout system, as `rollout --json` reports it. */
  evaluate(request: EvaluationRequest): Promise<RolloutSummary>;
  dispose(): void;
}
