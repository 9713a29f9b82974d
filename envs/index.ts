import './builtin.ts';

export { EnvError, promptOf, SPLITS } from './contract.ts';
export type {
  CondenseRules,
  Env,
  EnvDefinition,
  EnvErrorCode,
  EnvSpec,
  FormatError,
  JsonValue,
  Oracle,
  ParsedReply,
  PromptOptions,
  PromptTemplate,
  ReadTurn,
  ResetOptions,
  ResetResult,
  Split,
  StepInfo,
  StepResult,
} from './contract.ts';
export { getEnv, listEnvFamilies, listEnvs, makeEnv, registerEnv, registerEnvFamily } from './registry.ts';
export { checkEnv } from './check-env.ts';
export { categoryCounts, orderCategories, type CategoryCount } from './categories.ts';
// Prompts: the env-id lookup, and the kit an app's own env writes its prompt with.
export { promptFor } from './prompt/prompt-for.ts';
export { createPromptTemplate, type FamilySpec } from './prompt/template.ts';
export { genericPrompt } from './prompt/generic.ts';
export { thoughtActionContract } from './prompt/reply-contract.ts';
export { formatThoughtAction, parseThoughtAction, type ActionCleanup } from './prompt/parse-reply.ts';
// WebArena's own task configs on the user's sites (docs/envs/webarena.md): the definition with an injected judge.
export { createWebArenaDefinition, webArenaJudgeFromChat, webArenaJudgeMessages, readJudgeVerdict } from './web/webarena/index.ts';
export type { WebArenaDefinition, WebArenaDefinitionOptions, WebArenaJudge, WebArenaJudgeChat, WebArenaJudgeRequest } from './web/webarena/index.ts';
