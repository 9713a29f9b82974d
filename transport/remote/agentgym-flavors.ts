/**
 * What differs between AgentGym's env servers, as the client reads them: field names (reference
 * §2 of docs/agentgym-http.md) and each family's reward, normalised to 0…1 per episode with the
 * server's own numbers kept in `info` (`rawReward`, and `score` where the server sends one).
 *
 * | flavor | reward of a step | success at done |
 * |---|---|---|
 * | `sciworld` | change of `clip(score, 0, 100) / 100`: an episode's rewards sum to its final score / 100, a negative score (ScienceWorld's −100 for a failed task) counts 0 | `success`, else score ≥ 100 |
 * | `babyai` | `clip(reward, 0, 1)` on the `done` step only (the server repeats the last macro's reward on later steps) | `success`, else reward > 0 |
 * | `textcraft` | `clip(reward, 0, 1)` | `success`, else reward > 0 |
 * | `webshop` | `clip(reward, 0, 1)` (WebShop pays its 0…1 match score at `click[buy now]`) | reward ≥ 1 |
 * | `generic` | as sent | `success`, else reward > 0 |
 */
import { EnvError, type ResetResult, type StepInfo, type StepResult } from '../../envs/contract.ts';
import { listedActions, textcraftActions } from './agentgym-valid-actions.ts';

/** Field names and reward rules per env family. BabyAI's field names are the generic ones. */
export type AgentGymFlavor = 'generic' | 'babyai' | 'textcraft' | 'sciworld' | 'webshop';

export const AGENTGYM_FLAVORS: readonly AgentGymFlavor[] = ['generic', 'babyai', 'textcraft', 'sciworld', 'webshop'];

export type Reply = Record<string, unknown>;

/** What the client remembers within an episode: SciWorld's clipped score so far, TextCraft's commands. */
export interface EpisodeMemory {
  score: number;
  actions: readonly string[] | undefined;
}

/** WebShop names the instance `env_idx` and the task `session_id`; the others `id` and `data_idx`. */
export function idField(flavor: AgentGymFlavor): 'id' | 'env_idx' {
  return flavor === 'webshop' ? 'env_idx' : 'id';
}

export function resetBody(flavor: AgentGymFlavor, id: number, dataIdx: number, seed: number | undefined): Record<string, number> {
  if (flavor === 'webshop') return { env_idx: id, session_id: dataIdx };
  return seed === undefined ? { id, data_idx: dataIdx } : { id, data_idx: dataIdx, seed };
}

/** The instance id of a `/create` reply: `{"id": N}`, or WebShop's bare integer. */
export function createdId(reply: unknown): number {
  if (typeof reply === 'number' && Number.isInteger(reply)) return reply;
  const id = typeof reply === 'object' && reply !== null ? (reply as Reply)['id'] : undefined;
  if (typeof id !== 'number') throw new EnvError('PROTOCOL_ERROR', `POST /create: reply has no numeric "id": ${JSON.stringify(reply)}`);
  return id;
}

function field<T extends 'string' | 'number' | 'boolean'>(reply: Reply, name: string, type: T, what: string) {
  const value = reply[name];
  if (typeof value !== type) throw new EnvError('PROTOCOL_ERROR', `${what}: reply field "${name}" should be a ${type}, got ${JSON.stringify(value)}`);
  return value as T extends 'string' ? string : T extends 'number' ? number : boolean;
}

const clip = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

function info(observation: string, memory: EpisodeMemory, extra: Record<string, number | string | boolean | undefined>): StepInfo {
  const out: Record<string, number | string | boolean | readonly string[]> = {};
  const actions = listedActions(observation) ?? memory.actions;
  if (actions) out['availableActions'] = actions;
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) out[key] = value;
  return out as StepInfo;
}

/** The reward and success of a step by the family's rule (table above). */
function scoreStep(flavor: AgentGymFlavor, reply: Reply, memory: EpisodeMemory, raw: number, done: boolean): { reward: number; success: boolean; score?: number } {
  const said = typeof reply['success'] === 'boolean' ? reply['success'] : undefined;
  switch (flavor) {
    case 'sciworld': {
      const score = field(reply, 'score', 'number', 'step');
      // In score points, then /100 once, so the sum over an episode is exactly the final score / 100.
      const clipped = clip(score, 0, 100);
      const reward = (clipped - memory.score) / 100;
      memory.score = clipped;
      return { reward, success: said ?? score >= 100, score };
    }
    case 'babyai':
      return { reward: done ? clip(raw, 0, 1) : 0, success: said ?? raw > 0, ...(typeof reply['score'] === 'number' ? { score: reply['score'] } : {}) };
    case 'textcraft':
      return { reward: clip(raw, 0, 1), success: said ?? raw > 0 };
    case 'webshop':
      return { reward: clip(raw, 0, 1), success: raw >= 1 };
    case 'generic':
      return { reward: raw, success: said ?? raw > 0 };
  }
}

export function parseStep(flavor: AgentGymFlavor, reply: Reply, memory: EpisodeMemory): StepResult {
  const observation = field(reply, flavor === 'webshop' ? 'state' : 'observation', 'string', 'step');
  const raw = field(reply, 'reward', 'number', 'step');
  const done = field(reply, 'done', 'boolean', 'step');
  const truncated = done && reply['truncated'] === true;
  const { reward, success, score } = scoreStep(flavor, reply, memory, raw, done);
  const stepInfo = info(observation, done ? { ...memory, actions: undefined } : memory, {
    score,
    rawReward: raw,
    invalidAction: reply['invalid_action'] === true ? true : undefined,
    success: done && !truncated ? success : undefined,
  });
  return { observation, reward, terminated: done && !truncated, truncated, info: stepInfo };
}

/** A reset reply (WebShop's: the observation read apart, `GET /observation`). Resets `memory`. */
export function parseReset(flavor: AgentGymFlavor, reply: Reply, memory: EpisodeMemory, webshopObservation?: string): ResetResult {
  memory.score = 0;
  memory.actions = undefined;
  if (flavor === 'webshop') {
    if (webshopObservation === undefined) throw new EnvError('PROTOCOL_ERROR', 'reset: WebShop observation missing');
    return { observation: webshopObservation, info: info(webshopObservation, memory, {}) };
  }
  const raw = field(reply, 'observation', 'string', 'reset');
  if (flavor === 'textcraft') memory.actions = textcraftActions(raw);
  if (flavor !== 'sciworld') return { observation: raw, info: info(raw, memory, {}) };
  // As AgentGym's SciWorld client does: the goal travels apart from the first view.
  const description = typeof reply['task_description'] === 'string' ? reply['task_description'] : '';
  const observation = description === '' ? raw : `${description}\n${raw}`;
  const score = typeof reply['score'] === 'number' ? reply['score'] : undefined;
  memory.score = clip(score ?? 0, 0, 100);
  return {
    observation,
    info: info(observation, memory, {
      score,
      taskName: typeof reply['task_name'] === 'string' ? reply['task_name'] : undefined,
      variation: typeof reply['var_num'] === 'number' ? reply['var_num'] : undefined,
    }),
  };
}
