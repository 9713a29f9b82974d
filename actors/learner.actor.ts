/**
 * The learner actor: machines/learner.machine.ts with its four effects provided. The effects are
 * passed in (the composition root, actors/training-system.ts, owns the models, the policy and the
 * run directory), so this file is only the binding; each effect is a promise whose failure ends
 * the learner in its `failed` state with the message, never as an exception across the actor.
 */
import { createActor, fromPromise, type ActorRefFrom } from 'xstate';
import {
  learnerMachine,
  type CheckpointInput,
  type CollectInput,
  type LearnerEmitted,
  type LearnerEvent,
  type LearnerInput,
  type LearnerMetrics,
  type PublishInput,
  type TrainInput,
} from '../machines/learner.machine.ts';

export type { LearnerEmitted, LearnerEvent, LearnerInput, LearnerMetrics };

export interface LearnerEffects {
  /** Runs the step's rollouts; resolves with their stats (success rate, turns, seconds…). */
  collect(input: CollectInput): Promise<LearnerMetrics>;
  /** Trains on the collected rollouts; resolves with the step's metrics. */
  train(input: TrainInput): Promise<LearnerMetrics>;
  /** Hands the new weights to the agent under `version`. */
  publish(input: PublishInput): Promise<void>;
  /** Writes a checkpoint; resolves with its path. */
  checkpoint(input: CheckpointInput): Promise<string>;
}

export function learnerLogic(effects: LearnerEffects) {
  return learnerMachine.provide({
    actors: {
      collectRollouts: fromPromise<LearnerMetrics, CollectInput>(({ input }) => effects.collect(input)),
      trainPolicy: fromPromise<LearnerMetrics, TrainInput>(({ input }) => effects.train(input)),
      publishWeights: fromPromise<void, PublishInput>(({ input }) => effects.publish(input)),
      saveCheckpoint: fromPromise<string, CheckpointInput>(({ input }) => effects.checkpoint(input)),
    },
  });
}

export type LearnerLogic = ReturnType<typeof learnerLogic>;
export type LearnerActorRef = ActorRefFrom<LearnerLogic>;

/** A learner actor (not started: subscribe and listen with `.on(...)` first, then `start()` and send START). */
export function createLearnerActor(effects: LearnerEffects, input: LearnerInput): LearnerActorRef {
  return createActor(learnerLogic(effects), { input });
}
