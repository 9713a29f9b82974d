/** actorgym's public API: import { createRolloutSystem, getEnv } from 'actorgym'. */
export * from './envs/index.ts';
export * from './actors/index.ts';
export * from './streams/index.ts';
export { connectEnvServer, remoteEnvDefinition } from './envs/remote/ws-client.ts';
export { createAgentGymHttpEnv, agentGymHttpDefinition } from './envs/remote/agentgym-http-env.ts';
export type { ActRequest, Decision, Policy, TokenTrajectory } from './policy/policy.ts';
