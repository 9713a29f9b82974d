/**
 * The servers room: processes that host actors for others — the env server (our WebSocket
 * protocol), the event server (a run's event stream), AgentGym's env-server HTTP protocol and an
 * OpenAI-compatible policy server — over one shared listener (listener/: auth, Origin, limits,
 * health probes, drain). Nothing below this room imports it; transport/ holds what clients use.
 */
export { startEnvServer, type EnvServerHandle, type EnvServerOptions } from './env-server/env-server.ts';
export { startEventServer } from './event-server/event-server.ts';
export { startAgentGymHttpServer, type AgentGymHttpServer, type AgentGymHttpServerOptions } from './agentgym-http/agentgym-http-server.ts';
export { startLearnerServer, type LearnerServerHandle, type LearnerServerOptions, type LearnerServerStats } from './learner-server/learner-server.ts';
export { startPolicyServer, type PolicyServer, type PolicyServerOptions } from './policy-server/policy-server.ts';
export type { EnvServerStats, RateLimit } from './env-server/env-server.ts';
export type {
  EventServerHandle,
  EventServerOptions,
  EventServerStats,
  WaitForSubscribersOptions,
  WaitForSubscribersResult,
} from './event-server/event-server.ts';
export type { AgentGymHttpStats } from './agentgym-http/agentgym-http-server.ts';
export { createOpsLog, type OpsLog, type OpsLogOptions } from './listener/ops-log.ts';
