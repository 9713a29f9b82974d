/**
 * AgentGym's `data_idx` → goal mapping for TextCraft (agentenv-textcraft/agentenv_textcraft/
 * environment.py, `TextCraftEnv.reset`): the goals of depth ≥ 1 stably sorted by depth, indexed
 * by `data_idx` modulo their number (544). The original's order of equal-depth goals follows
 * `os.listdir`; ours follows recipe file names in code-point order (docs/envs/textcraft.md).
 */
import type { AgentGymTaskIndex } from '../contract.ts';
import { craftingTree } from './tree.ts';

let order: { readonly ids: readonly string[]; readonly index: ReadonlyMap<string, number> } | undefined;

function goalOrder(): NonNullable<typeof order> {
  if (!order) {
    const ids = craftingTree().goals().map(([item]) => item);
    order = { ids, index: new Map(ids.map((id, i) => [id, i])) };
  }
  return order;
}

export const textcraftAgentGymIndex: AgentGymTaskIndex = {
  get size() {
    return goalOrder().ids.length;
  },
  taskIdAt(dataIdx) {
    if (!Number.isSafeInteger(dataIdx) || dataIdx < 0) return undefined;
    const { ids } = goalOrder();
    return ids[dataIdx % ids.length];
  },
  dataIdxOf(taskId) {
    return goalOrder().index.get(taskId);
  },
};
