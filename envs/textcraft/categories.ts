/** TextCraft's task categories: the goal's crafting depth, as AgentGym's test mix counts it. */
import { parseTaskId } from './tasks.ts';
import { craftingTree } from './tree.ts';

/** `depth 1` … `depth 4`: the fewest crafting steps from raw items to the goal (`minDepth`). */
export function textcraftCategoryOf(taskId: string): string {
  return `depth ${craftingTree().minDepth(parseTaskId(taskId))}`;
}
