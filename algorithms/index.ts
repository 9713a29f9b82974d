/**
 * `algorithms/`: advantage estimators and losses for multi-turn agent RL, pure maths.
 *
 * Advantage estimation runs on the host over a {@link TrainingBatch}; the losses take
 * `tf.Tensor`s and leave only their result scalars alive. A learner step is:
 *
 * ```ts
 * const { advantages, returns } = estimateAdvantages('grpo', batch);
 * const { value, grads } = tf.variableGrads(() => {
 *   const terms = objective({
 *     logProbs, oldLogProbs, mask, refLogProbs, logits,
 *     advantages: toTensor2d(batch, advantages),
 *   });
 *   metrics = readScalars(terms);
 *   return terms.loss;
 * });
 * const { grads: clipped, norm } = clipByGlobalNorm(grads, { maxNorm: 1 });
 * ```
 */
import { AlgorithmError } from './batch.ts';
import type { AdvantageInput, AdvantageResult } from './batch.ts';
import { gaeAdvantages, type GaeArgs } from './gae.ts';
import { grpoAdvantages, type GrpoArgs } from './grpo.ts';
import { reinforcePlusPlusAdvantages, type ReinforcePlusPlusArgs } from './reinforce-plus-plus.ts';
import { rlooAdvantages, type RlooArgs } from './rloo.ts';

// ---------------------------------------------------------------------------------------------
// Dispatcher
// ---------------------------------------------------------------------------------------------

import { ALGORITHMS, isAlgorithm, parseAlgorithm, type Algorithm } from './algorithm-names.ts';

export { ALGORITHMS, isAlgorithm, parseAlgorithm, type Algorithm };

/** Every estimator's hyperparameters in one object; each estimator reads its own keys. */
export type AdvantageArgs = GrpoArgs & RlooArgs & ReinforcePlusPlusArgs & GaeArgs;

/** Advantages and returns [B·T] for `algo` ('ppo' estimates with GAE and needs `batch.values`). */
export function estimateAdvantages(
  algo: Algorithm,
  batch: AdvantageInput,
  args: Partial<AdvantageArgs> = {},
): AdvantageResult {
  switch (parseAlgorithm(algo)) {
    case 'grpo':
      return grpoAdvantages(batch, args);
    case 'ppo':
      return gaeAdvantages(batch, args);
    case 'reinforce++':
      return reinforcePlusPlusAdvantages(batch, args);
    case 'rloo':
      return rlooAdvantages(batch, args);
  }
}

// ---------------------------------------------------------------------------------------------
// Public surface
// ---------------------------------------------------------------------------------------------

export {
  AlgorithmError,
  broadcastOverAgentTokens,
  checkBatch,
  groupIndices,
  rowOf,
  toTensor2d,
} from './batch.ts';
export type { AdvantageInput, AdvantageResult, AlgorithmErrorCode, GroupId, TrainingBatch } from './batch.ts';
export { lastAgentIndex, placeOutcomeReward, placeOutcomeRewards } from './reward-placement.ts';
export { maskedWhiten } from './whiten.ts';
export { maskedMean } from './masked.ts';
export { grpoAdvantages, grpoDefaults, grpoSequenceAdvantages } from './grpo.ts';
export type { GrpoArgs } from './grpo.ts';
export { rlooAdvantages, rlooDefaults, rlooSequenceAdvantages } from './rloo.ts';
export type { RlooArgs } from './rloo.ts';
export {
  reinforcePlusPlusAdvantages,
  reinforcePlusPlusDefaults,
  reinforcePlusPlusFromTokenRewards,
} from './reinforce-plus-plus.ts';
export type { ReinforcePlusPlusArgs } from './reinforce-plus-plus.ts';
export { gaeAdvantages, gaeDefaults, gaeFromTokenRewards } from './gae.ts';
export type { GaeArgs } from './gae.ts';
export { policyLoss, policyLossDefaults } from './policy-loss.ts';
export type { PolicyLossArgs, PolicyLossTerms } from './policy-loss.ts';
export { behaviourWeights } from './behaviour-weights.ts';
export type { BehaviourWeights } from './behaviour-weights.ts';
export { klLoss, klPerToken } from './kl.ts';
export type { KlEstimator, KlTerms } from './kl.ts';
export { entropyFromLogits, entropyLoss } from './entropy.ts';
export { valueLoss, valueLossDefaults } from './value-loss.ts';
export type { ValueLossArgs, ValueLossTerms } from './value-loss.ts';
export { clipByGlobalNorm, gradClipDefaults } from './grad-clip.ts';
export type { GradClipArgs } from './grad-clip.ts';
export { LOSS_TERMS, objective, objectiveDefaults, readScalars } from './objective.ts';
export type { ObjectiveArgs, ObjectiveInputs, ObjectiveTerms } from './objective.ts';
