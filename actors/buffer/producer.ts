/**
 * The seam between the learner side and whatever rolls out: a producer turns a step's work (which
 * groups of which step, at which horizon) into trajectory groups that it offers to the buffer
 * actor one by one as they finish. The local producer runs them through the rollout system in
 * this process; the learner server's remote producer hands them to rollout workers over the
 * socket (docs/distributed-training.md). Either way only whole groups leave a producer, so a
 * producer that dies mid-step leaves nothing half-made in the buffer.
 */
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';

/** What one producer is asked to collect. Tasks and seeds derive from (run seed, step, slot). */
export interface StepWork {
  readonly step: number;
  /** The curriculum's horizon for the step. */
  readonly horizon: number;
  /** Indices of the step's groups to collect (all of 0 … tasksPerStep − 1 in one process). */
  readonly groups: readonly number[];
}

/** Float32 weights by variable name: what a new policy version carries to a producer. */
export interface NamedWeights {
  readonly version: number;
  readonly tensors: readonly { readonly name: string; readonly shape: readonly number[]; readonly data: Float32Array }[];
}

/** Weights for the policy to decode with from the next step on: `apply` installs them (e.g. `agent.setWeights`). */
export interface StagedWeights {
  readonly version: number;
  apply(): void;
  /** Frees what the weights hold when they are replaced before being applied. */
  discard?(): void;
}

export interface Producer {
  readonly name: string;
  /** The policy version the producer samples with now. */
  readonly version: number;
  /**
   * Collects `work`; each finished group goes to `offer` (the buffer). Resolves once every group
   * was offered; rejects when the work cannot be done (the caller may hand it to another producer).
   */
  produce(work: StepWork, offer: (group: TrajectoryGroup) => void, signal: AbortSignal): Promise<void>;
}
