/** Effects bound to machines, the composition root, and the servers that host actors. */
export { createRolloutSystem, resolveSchedule, type AgentSpec, type RolloutSystem, type RolloutSystemOptions } from './rollout-system.ts';
export { createAgentActor, type AgentActorEvent, type AgentActorInput, type AgentActorRef } from './agent.actor.ts';
export { createEnvActor, type EnvActorEvent, type EnvActorInput, type EnvActorRef } from './env.actor.ts';
export { createCurriculumActor, type CurriculumActorRef } from './curriculum.actor.ts';
export { systemClock, type RunClock } from './clock.ts';
export { startEnvServer, type EnvServerHandle, type EnvServerOptions } from '../servers/env-server/env-server.ts';
export { startEventServer } from '../servers/event-server/event-server.ts';
export { startAgentGymHttpServer, type AgentGymHttpServer, type AgentGymHttpServerOptions } from '../servers/agentgym-http/agentgym-http-server.ts';
export { startPolicyServer, type PolicyServer, type PolicyServerOptions } from '../servers/policy-server/policy-server.ts';
export {
  runEvaluation, passAtK, aggregate, EvalError,
  type RunEvaluationOptions, type EvalRun, type EvalResults, type SampleResult, type Aggregate,
} from '../eval/index.ts';
export {
  collectDemos, readDemos, writeDemos, DEMO_FORMATS,
  type CollectDemosOptions, type CollectedDemos, type Demo, type DemoTurn, type DemoFileFormat, type ReadDemosOptions, type WriteDemosOptions,
} from '../demos/index.ts';
export { createTrainingSystem, type TrainingOptions, type TrainingSummary, type TrainingSystem } from './training-system.ts';
export { createSftSystem, type SftOptions, type SftSummary, type SftSystem } from './sft-system.ts';
