/**
 * TextCraft (AgentGym's `agentenv-textcraft`): craft a Minecraft item from a list of crafting
 * commands, with the real 1.16 recipes. Exports the registry definition and the pieces that
 * tests and benchmarks use.
 */
import { EnvError, type EnvDefinition, type EnvSpec } from '../contract.ts';
import { textcraftPrompt } from './prompt.ts';
import { TextCraftEnv } from './env.ts';
import { TextCraftOracle } from './oracle.ts';
import { textcraftCategoryOf } from './categories.ts';
import { textcraftAgentGymIndex } from './agentgym-index.ts';
import { TEST_SIZE, TRAIN_SIZE, textcraftTasks } from './tasks.ts';

export const textcraftSpec: EnvSpec = {
  id: 'textcraft',
  description: 'Minecraft 1.16 crafting in text (get, craft, inventory), as in AgentGym',
  // The last stage of AgentGym-RL's TextCraft ScalingInter schedule [10, 20, 30].
  defaultHorizon: 30,
  splits: { train: TRAIN_SIZE, test: TEST_SIZE },
  maxReward: 1,
};

export const textcraftDefinition: EnvDefinition = {
  spec: textcraftSpec,
  tasks: textcraftTasks,
  make: () => new TextCraftEnv(textcraftSpec),
  categoryOf: textcraftCategoryOf,
  prompt: textcraftPrompt,
  agentgymIndex: textcraftAgentGymIndex,
  oracle(env) {
    if (!(env instanceof TextCraftEnv)) {
      throw new EnvError('ENV_INTERNAL', 'the textcraft oracle needs a local TextCraftEnv made by textcraftDefinition.make()');
    }
    return new TextCraftOracle(env);
  },
};

export { TextCraftEnv, DEFAULT_SEED } from './env.ts';
export { TextCraftOracle } from './oracle.ts';
export { TextCraftGame, type Outcome } from './game.ts';
export { CraftingTree, craftingTree, type Recipe, type Ingredient } from './tree.ts';
export { commandSet, treeRecipes, MAX_DISTRACTORS } from './commands.ts';
export { planCrafting } from './planner.ts';
export { availableActions } from './actions.ts';
export { textcraftCategoryOf } from './categories.ts';
export { textcraftAgentGymIndex } from './agentgym-index.ts';
export { textcraftTasks, parseTaskId, TEST_DEPTH_MIX, TEST_SIZE, TRAIN_SIZE } from './tasks.ts';
