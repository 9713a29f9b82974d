/**
 * The transport room: what carries envs and run events between processes. The wire codec and
 * WebSocket primitives (wire/, docs/protocol.md), the remote env clients (our protocol, pooled
 * over several servers, and AgentGym HTTP), the event-stream client `observeRun`, and
 * `resolveEnvDefinition`, which picks a local env or the same env on remote servers. envs/ and
 * streams/ never import it; actors/, cli/ and dashboard/ do.
 */
export * from './wire/index.ts';
export {
  connectEnvServer,
  remoteEnvDefinition,
  type EnvServerConnectOptions,
  type EnvServerConnection,
  type RemoteEnvDefinition,
  type RemoteEnvInfo,
} from './remote/ws-client.ts';
export { EnvServerPool, type EnvServerPoolOptions, type PoolEvent } from './remote/ws-pool.ts';
export { envReachability, poolEnvDefinition, type EnvReachability, type PoolEnvDefinition } from './remote/pool-definition.ts';
export {
  agentGymHttpDefinition,
  createAgentGymHttpEnv,
  type AgentGymFlavor,
  type AgentGymHttpDefinitionOptions,
  type AgentGymHttpEnvOptions,
} from './remote/agentgym-http-env.ts';
export { observeRun, ObserveRunError, type ObserveRunErrorCode, type ObserveRunOptions } from './observe-run.ts';
export { parseRemoteUrls, resolveEnvDefinition, type EnvLocation } from './resolve-env.ts';
