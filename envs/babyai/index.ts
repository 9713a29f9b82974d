/**
 * BabyAI (AgentGym's `agentenv-babyai`): minigrid BabyAI levels played through text
 * descriptions and macro actions. Exports the registry definition and the pieces that
 * tests, benchmarks and the dashboard use.
 */
import { EnvError, type EnvDefinition, type EnvSpec } from '../contract.ts';
import { babyaiPrompt } from './prompt.ts';
import { BabyAIEnv } from './env.ts';
import { BabyAIOracle } from './oracle.ts';
import { babyaiTasks, familyOf } from './tasks.ts';
import { babyaiAgentGymIndex } from './agentgym-index.ts';
import { COLOR_NAMES } from './world.ts';

export const babyaiSpec: EnvSpec = {
  id: 'babyai',
  description: 'BabyAI grid worlds (minigrid) in text with macro actions, as in AgentGym',
  defaultHorizon: 20,
  splits: { train: babyaiTasks('train').length, test: babyaiTasks('test').length },
  maxReward: 1,
  // Doors open with the key of their colour whatever the colour is; levels only choose which.
  symmetries: [[...COLOR_NAMES]],
};

export const babyaiDefinition: EnvDefinition = {
  spec: babyaiSpec,
  tasks: babyaiTasks,
  make: () => new BabyAIEnv(babyaiSpec),
  // The level family (GoTo, Pickup, ActionObjDoor, FindObjS7, OneRoomS20, SynthLoc), as the paper groups levels.
  categoryOf: familyOf,
  prompt: babyaiPrompt,
  agentgymIndex: babyaiAgentGymIndex,
  oracle(env) {
    if (!(env instanceof BabyAIEnv)) {
      throw new EnvError('ENV_INTERNAL', 'the babyai oracle needs a local BabyAIEnv made by babyaiDefinition.make()');
    }
    return new BabyAIOracle(env);
  },
};

export { BabyAIEnv } from './env.ts';
export { BabyAIOracle } from './oracle.ts';
export { babyaiTasks, parseTaskId, familyOf, LEVELS, ALL_LEVELS } from './tasks.ts';
export { AGENTGYM_LEVELS, agentGymLevelOf, babyaiAgentGymIndex } from './agentgym-index.ts';
export type { BabyAIDoneRule } from './env.ts';
export type { Family, LevelSpec } from './level.ts';
