/** actorgym's public API: import { createRolloutSystem, getEnv } from 'actorgym'. */
export * from './envs/index.ts';
export * from './actors/index.ts';
export {
  startEnvServer, type EnvServerHandle, type EnvServerOptions, startEventServer, startAgentGymHttpServer, type AgentGymHttpServer,
  type AgentGymHttpServerOptions, startPolicyServer, type PolicyServer, type PolicyServerOptions,
} from './servers/index.ts';
export {
  runEvaluation, passAtK, aggregate, EvalError,
  type RunEvaluationOptions, type EvalRun, type EvalResults, type SampleResult, type Aggregate,
} from './eval/index.ts';
export {
  readDemos, writeDemos, DEMO_FORMATS,
  type Demo, type DemoTurn, type DemoFileFormat, type ReadDemosOptions, type WriteDemosOptions,
  parseTokenRecords, tokenRecordOf, TokenRecordingPolicy, TokenRecordSchema, TokenRecordStream, writeTokenRecords,
  type TokenRecord, type TokenRecordTurn, type TokenRecordInput,
} from './demos/index.ts';
export * from './streams/index.ts';
export {
  agentGymHttpDefinition,
  connectEnvServer,
  createAgentGymHttpEnv,
  observeRun,
  parseRemoteUrls,
  poolEnvDefinition,
  remoteEnvDefinition,
  resolveEnvDefinition,
  type EnvLocation,
  type ObserveRunOptions,
  type PoolEnvDefinition,
} from './transport/index.ts';
export type { ActRequest, Decision, Policy, TokenTrajectory } from './policy/policy.ts';
export { createLlmPolicy, DEFAULT_BASE_URL, type CreateLlmPolicyOptions, type LlmAgent } from './policy/llm/create-llm-policy.ts';
export { LlmPolicy, type LlmPolicyOptions } from './policy/llm/llm-policy.ts';
export { createTokenLlmPolicy, type CreateTokenLlmPolicyOptions, type TokenLlmAgent } from './policy/llm/create-token-llm-policy.ts';
export { TokenLlmPolicy, type TokenExactTrajectory, type TokenLlmPolicyOptions } from './policy/llm/token-llm-policy.ts';
export { LlmError, type LlmErrorCode } from './policy/llm/llm-error.ts';
export { promptFor, type PromptTemplate, type PromptOptions, type ParsedReply } from './envs/index.ts';
export type { ChatMessage, ChatRequest, ChatReply, LlmUsage } from './policy/llm/chat-types.ts';
export type { TurnUsage } from './machines/episode.machine.ts';
