/**
 * SciWorld (AgentGym's `agentenv-sciworld`): a ScienceWorld-style text simulator written here —
 * rooms and doors, containers, heat and changes of state, electrical circuits, living things and
 * mixing — with five task families (Measure, Test-Conductivity, Find, Chem-Mix, Lifespan).
 * See docs/envs/sciworld.md.
 */
import { EnvError, type EnvDefinition, type EnvSpec } from '../contract.ts';
import { sciworldPrompt } from './prompt.ts';
import { sciworldCategoryOf } from './categories.ts';
import { SciWorldEnv } from './env.ts';
import { SciWorldOracle } from './oracle.ts';
import { sciworldTasks, splitSize } from './tasks.ts';

export const sciworldSpec: EnvSpec = {
  id: 'sciworld',
  description: 'ScienceWorld-style science tasks in text (measure, conductivity, find, chem-mix, lifespan), as in AgentGym',
  // AgentGym-RL's SciWorld schedule ends at 30 turns ([10,20,30]@100).
  defaultHorizon: 30,
  // Counts are fixed by the family mix; the ids themselves are built on first use (tasks.ts).
  splits: { train: splitSize('train'), test: splitSize('test') },
  // Rewards are score changes / 100: an episode's rewards sum to its final score / 100 (0–100
  // before this scaling, as the contract notes); `info.score` keeps ScienceWorld's 0–100.
  maxReward: 1,
};

export const sciworldDefinition: EnvDefinition = {
  spec: sciworldSpec,
  tasks: sciworldTasks,
  make: () => new SciWorldEnv(sciworldSpec),
  categoryOf: sciworldCategoryOf,
  prompt: sciworldPrompt,
  oracle(env) {
    if (!(env instanceof SciWorldEnv)) {
      throw new EnvError('ENV_INTERNAL', 'the sciworld oracle needs a local SciWorldEnv made by sciworldDefinition.make()');
    }
    return new SciWorldOracle(env);
  },
};

export { SciWorldEnv, NO_MATCH } from './env.ts';
export { SciWorldOracle } from './oracle.ts';
export { sciworldCategoryOf, CATEGORY_NAMES } from './categories.ts';
export { sciworldTasks, parseTaskId, familyOf, buildTask, FAMILIES, TEST_COUNTS, TRAIN_COUNTS } from './tasks.ts';
export type { Family, SciTask } from './task.ts';
