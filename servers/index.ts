/** The servers room: processes that host actors for others (env, event, AgentGym HTTP and policy servers). */
export { startEnvServer, type EnvServerHandle, type EnvServerOptions } from './env-server/env-server.ts';
export { startEventServer } from './event-server/event-server.ts';
export { startAgentGymHttpServer, type AgentGymHttpServer, type AgentGymHttpServerOptions } from './agentgym-http/agentgym-http-server.ts';
export { startPolicyServer, type PolicyServer, type PolicyServerOptions } from './policy-server/policy-server.ts';
