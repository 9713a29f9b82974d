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
export { getEnv, listEnvs, makeEnv, registerEnv } from './registry.ts';
export { checkEnv } from './check-env.ts';
export { categoryCounts, orderCategories, type CategoryCount } from './categories.ts';
// Prompts: the env-id lookup, and the kit an app's own env writes its prompt with.
export { promptFor } from './prompt/prompt-for.ts';
export { createPromptTemplate, type FamilySpec } from './prompt/template.ts';
export { genericPrompt } from './prompt/generic.ts';
export { thoughtActionContract } from './prompt/reply-contract.ts';
export { formatThoughtAction, parseThoughtAction, type ActionCleanup } from './prompt/parse-reply.ts';
