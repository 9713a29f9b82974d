/** Actors (effects bound to machines) and the systems that wire them: rollouts, training, SFT, demo collection. */
export { createRolloutSystem, resolveSchedule, type AgentSpec, type RolloutSystem, type RolloutSystemOptions } from './rollout-system.ts';
export { createTrainingSystem, type TrainingOptions, type TrainingSummary, type TrainingSystem } from './training-system.ts';
export { createSftSystem, type SftOptions, type SftSummary, type SftSystem } from './sft-system.ts';
export { collectDemos, type CollectDemosOptions, type CollectedDemos } from './collect-demos.ts';
export { createAgentActor, type AgentActorEvent, type AgentActorInput, type AgentActorRef } from './agent.actor.ts';
export { createEnvActor, type EnvActorEvent, type EnvActorInput, type EnvActorRef } from './env.actor.ts';
export { createCurriculumActor, type CurriculumActorRef } from './curriculum.actor.ts';
export { systemClock, type RunClock } from './clock.ts';
