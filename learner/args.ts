/**
 * The learner's hyperparameters, one line each (CleanRL style). Defaults are for the small
 * transformer trained from scratch here, not the paper's 7B model: see the notes on `lr`.
 */
import type { Algorithm } from '../algorithms/index.ts';

export interface LearnerArgs {
  /** advantage estimator and loss family: grpo | ppo | reinforce++ | rloo */
  readonly algo: Algorithm;
  /**
   * Adam learning rate. The paper's 1e-6 fine-tunes a pretrained 7B model; a 0.5 M-parameter
   * model from random init needs ~1e-3..3e-4 (measured: 1e-6 does not move it in 100 steps).
   */
  readonly lr: number;
  /** passes over each step's rollouts (PPO epochs) */
  readonly epochs: number;
  /** windows (rows) per minibatch; each minibatch is one Adam step */
  readonly minibatch: number;
  /** PPO clip ε (paper: 0.2) */
  readonly clipRatio: number;
  /** coefficient of the k3 KL to the frozen initial policy (paper: 1e-3) */
  readonly klCoef: number;
  /** entropy bonus (paper: 1e-3) at agent tokens, on the distribution `constrainedLoss` names */
  readonly entropyCoef: number;
  /** critic loss weight (PPO only) */
  readonly valueCoef: number;
  /** global gradient-norm clip (paper: 1.0) */
  readonly maxGradNorm: number;
  /** sampling temperature of the rollouts; the learner scores with the same one */
  readonly temperature: number;
  /**
   * score the constrained distribution (softmax over the allowed tokens, what the rollouts sampled
   * from) rather than the full vocabulary; see policy/transformer/constrained-log-probs.ts
   */
  readonly constrainedLoss: boolean;
  /**
   * GRPO: divide the group-centred reward by the group's std (the paper's GRPO) or not (Dr. GRPO).
   * With BabyAI's length-discounted reward, the std turns tiny reward differences inside an
   * all-success group into full ±1 advantages.
   */
  readonly stdNorm: boolean;
  /**
   * What the minibatch loss is: the RL objective of `algo` (default), or behaviour cloning's
   * token-mean cross-entropy on the agent tokens (actors/sft), on the same rows, masks and
   * constrained distribution. Not a run setting: SFT sets it on its own copy of the args.
   */
  readonly objective?: 'policy-gradient' | 'cross-entropy';
  /**
   * Asynchronous training (TrainingConfig.async; absent = synchronous): the objective corrects for
   * rows sampled by older weights with decoupled PPO, each token weighted by
   * min(π_prox/π_behav, importanceCap) (algorithms/behaviour-weights.ts, train-step.ts).
   */
  readonly async?: { readonly importanceCap: number };
}

export const learnerDefaults: Omit<LearnerArgs, 'algo'> = {
  lr: 1e-3,
  epochs: 1,
  minibatch: 64,
  clipRatio: 0.2,
  klCoef: 1e-3,
  entropyCoef: 1e-3,
  valueCoef: 0.5,
  maxGradNorm: 1.0,
  temperature: 1,
  constrainedLoss: true,
  stdNorm: true,
};
