import './builtin.ts';

export { EnvError } from './contract.ts';
export type {
  Env,
  EnvDefinition,
  EnvErrorCode,
  EnvSpec,
  JsonValue,
  Oracle,
  ResetOptions,
  ResetResult,
  Split,
  StepInfo,
  StepResult,
} from './contract.ts';
export { getEnv, listEnvs, makeEnv, registerEnv } from './registry.ts';
export { checkEnv } from './check-env.ts';
export { categoryCounts, orderCategories, type CategoryCount } from './categories.ts';
