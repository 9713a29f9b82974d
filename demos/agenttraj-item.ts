/**
 * AgentGym's SFT record (AgentTraj, agentenv/agentenv/controller/types.py): one episode as
 * `{ "item_id": "<env>_<data_idx>", "conversations": [{ "from", "loss", "value" }, …] }`. The
 * conversation opens with an instruction (human, loss null) and an acknowledgement (gpt, loss
 * false), then alternates observation (human, loss null) and reply (gpt, loss true). AgentGym's
 * trainer reads the index after the last `_` as the env server's `data_idx`; ours is the index
 * our AgentGym HTTP endpoint resets to (`agentGymTaskOrder`: the env's AgentGym mapping when it
 * has one, as BabyAI does, else test tasks, then train).
 *
 * We add one optional field, `actorgym` (seed, sample, agent, episode id, and our task id where
 * the item id alone would name another), so a file we wrote reads back to the very demos;
 * readers that do not know it ignore it.
 */
import { z } from 'zod';
import { agentGymTaskOrder } from '../transport/remote/agentgym-http-env.ts';
import type { EnvDefinition, Split } from '../envs/contract.ts';

export const AgentTrajMessageSchema = z.object({
  from: z.enum(['human', 'gpt']),
  /** AgentGym: null on human turns, false on the acknowledgement, true on replies trained on. */
  loss: z.boolean().nullable().optional(),
  value: z.string(),
});

export const AgentTrajMetaSchema = z.object({
  /**
   * Our task id, when it is not the task `item_id` names in AgentGym's order (BabyAI: our own
   * `<level>/<seed>` grids share their `data_idx` with the original's `<level>/<seed>/minigrid`).
   */
  taskId: z.string().min(1).optional(),
  seed: z.number(),
  sample: z.int().min(0),
  agent: z.string(),
  episodeId: z.string(),
});

export const AgentTrajItemSchema = z.object({
  item_id: z.string().min(1),
  conversations: z.array(AgentTrajMessageSchema),
  actorgym: AgentTrajMetaSchema.optional(),
});

export type AgentTrajMessage = z.infer<typeof AgentTrajMessageSchema>;
export type AgentTrajMeta = z.infer<typeof AgentTrajMetaSchema>;
export type AgentTrajItem = z.infer<typeof AgentTrajItemSchema>;

/** Where AgentGym names an env family differently from our registry id. */
const AGENTGYM_NAMES: Readonly<Record<string, string>> = { search: 'searchqa' };

/** AgentGym's name of one of our envs, the `item_id` prefix (`search` → `searchqa`). */
export function agentGymName(envId: string): string {
  return AGENTGYM_NAMES[envId] ?? envId;
}

/** Our env id for an `item_id` prefix (`searchqa` → `search`). */
export function envIdOfAgentGymName(name: string): string {
  const lower = name.toLowerCase();
  return Object.entries(AGENTGYM_NAMES).find(([, agentgym]) => agentgym === lower)?.[0] ?? lower;
}

/** `babyai_17` → `{ prefix: 'babyai', index: 17 }`; undefined without a trailing `_<integer>`. */
export function parseItemId(itemId: string): { readonly prefix: string; readonly index: number } | undefined {
  const match = /^(.*)_(\d+)$/.exec(itemId);
  return match ? { prefix: match[1] as string, index: Number(match[2]) } : undefined;
}

export interface ItemTask {
  readonly taskId: string;
  readonly split: Split;
}

/** The item id our AgentGym HTTP endpoint gives a task: `<agentgym name>_<data_idx>`. */
export function itemIdOf(definition: EnvDefinition, taskId: string): string {
  const index = agentGymTaskOrder(definition).dataIdxOf(taskId);
  if (index === undefined) throw new Error(`task "${taskId}" is not in either split of ${definition.spec.id}`);
  return `${agentGymName(definition.spec.id)}_${index}`;
}

/** The task (and its split) an item id names in `definition`'s data_idx order. */
export function taskOfItemId(definition: EnvDefinition, itemId: string, ownTaskId?: string): ItemTask {
  const parsed = parseItemId(itemId);
  if (parsed === undefined) throw new Error(`item_id "${itemId}" does not end in _<data_idx>`);
  const id = definition.spec.id;
  if (envIdOfAgentGymName(parsed.prefix) !== id) {
    throw new Error(`item_id "${itemId}" names env "${parsed.prefix}", not ${id} (expected ${agentGymName(id)}_<data_idx>)`);
  }
  const order = agentGymTaskOrder(definition);
  const named = order.taskIdAt(parsed.index);
  if (named === undefined) throw new Error(`item_id "${itemId}": data_idx ${parsed.index} is out of range 0..${order.size - 1} for ${id} (test tasks first, then train)`);
  if (ownTaskId !== undefined && order.dataIdxOf(ownTaskId) !== parsed.index) {
    throw new Error(`item_id "${itemId}" does not belong to our task "${ownTaskId}" (whose data_idx is ${order.dataIdxOf(ownTaskId) ?? 'none'})`);
  }
  const taskId = ownTaskId ?? named;
  return { taskId, split: definition.tasks('test').includes(taskId) ? 'test' : 'train' };
}
