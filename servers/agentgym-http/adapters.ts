/**
 * Per-env field names of AgentGym's HTTP protocol (reference §2), as small adapters over one
 * generic server. BabyAI's shape is the generic one; TextCraft and SciWorld rename and add
 * fields; SearchQA (`search`) renames the id field (`env_idx`) and the task index (`id`) and
 * answers /create and /reset with bare values; WebArena (`web`) renames both and takes the
 * model's whole reply as the action.
 *
 * Extras beyond AgentGym's fields, sent only when they carry news so that replies stay small:
 * `truncated: true`, `success` (at termination, when the env says), `invalid_action: true`.
 * AgentGym's Python clients ignore unknown fields; actorgym's client reads them.
 */
import type { Env, JsonValue, ResetResult, StepResult } from '../../envs/contract.ts';
import { BabyAIEnv } from '../../envs/babyai/env.ts';
import { extractWebAction } from '../../envs/web/browser/grammar.ts';

export type Reply = { [key: string]: JsonValue };

export interface ServerAdapter {
  readonly name: string;
  /** Request field holding the instance id. */
  readonly idField: string;
  /** TextCraft's /create also resets to data_idx 0 and replies like /reset. */
  readonly resetOnCreate: boolean;
  /**
   * Request field holding the task index in /reset, default `data_idx`. When set, /create with
   * `resetOnCreate` also reads it (default 0): SearchQA creates with `{"id": N}`.
   */
  readonly indexField?: string;
  /** The /create reply when `resetOnCreate`; default the /reset reply. SearchQA's is the bare id. */
  createReply?(id: number, resetReply: JsonValue): JsonValue;
  /** A message for /create options this server cannot honour, else undefined. */
  checkCreate(body: Readonly<Record<string, unknown>>): string | undefined;
  /** The text served as `observation` (and by GET /observation). */
  observation(result: ResetResult | StepResult): string;
  /** A JSON object, except SearchQA's bare prompt string. */
  resetReply(id: number, observation: string, result: ResetResult): JsonValue;
  /** `score` is the env's `info.score` when it has one, else the episode's reward so far. */
  stepReply(observation: string, result: StepResult, score: number): Reply;
  /** Sets a new env's episode rules: the original server's with `compat`, else actorgym's. */
  prepareEnv?(env: Env, compat: boolean): void;
  /** The action to step with, from the /step body's `action`; default as sent. */
  stepAction?(sent: string): string;
  /** The /reset reply when the reset failed, from `{"error", "code"}`; default that error body. */
  resetFailure?(error: Reply): Reply;
}

function withExtras(reply: Reply, result: StepResult): Reply {
  if (result.truncated) reply['truncated'] = true;
  if (result.terminated && typeof result.info.success === 'boolean') reply['success'] = result.info.success;
  if (result.info.invalidAction === true) reply['invalid_action'] = true;
  return reply;
}

const done = (r: StepResult): boolean => r.terminated || r.truncated;
const noCreateOptions = (): undefined => undefined;

export const genericAdapter: ServerAdapter = {
  name: 'generic',
  idField: 'id',
  resetOnCreate: false,
  checkCreate: noCreateOptions,
  observation: (r) => r.observation,
  resetReply: (_id, observation) => ({ observation, reward: 0, score: 0, done: false, deleted: false }),
  stepReply: (observation, r, score) => withExtras({ observation, reward: r.reward, score, done: done(r) }, r),
};

/**
 * AgentGym's BabyAI prompt expects the action list in the text; add it when the env keeps it in
 * info. data_idx → task is BabyAI's own AgentGym mapping (`babyaiDefinition.agentgymIndex`).
 * With compat (the default) a local BabyAIEnv plays agentenv-babyai's done rule: `done` only on
 * a success paying more than 0.5, `reward` the last macro's, `score` their running sum.
 */
export const babyaiAdapter: ServerAdapter = {
  ...genericAdapter,
  name: 'babyai',
  prepareEnv(env, compat) {
    if (env instanceof BabyAIEnv) env.setDoneRule(compat ? 'agentgym' : 'actorgym');
  },
  observation(r) {
    const actions = r.info.availableActions;
    if (!actions || r.observation.includes('Available actions: [')) return r.observation;
    return `${r.observation}\nAvailable actions: [${actions.map((a) => JSON.stringify(a)).join(', ')}]`;
  },
};

export const textcraftAdapter: ServerAdapter = {
  ...genericAdapter,
  name: 'textcraft',
  resetOnCreate: true,
  checkCreate: (body) =>
    (body['commands'] ?? null) !== null || (body['goal'] ?? null) !== null
      ? 'custom "commands"/"goal" are not supported: create with {} and reset with a data_idx'
      : undefined,
  resetReply: (id, observation) => ({ id, observation, done: false, reward: 0 }),
  stepReply: (observation, r) => withExtras({ observation, reward: r.reward, done: done(r) }, r),
};

const str = (v: JsonValue | undefined, fallback: string): string => (typeof v === 'string' ? v : fallback);
const num = (v: JsonValue | undefined, fallback: number): number => (typeof v === 'number' ? v : fallback);

/**
 * AgentGym's SciWorld client shows `task_description + "\n" + observation`, so a reset
 * observation that already starts with the description is sent without it.
 */
export const sciworldAdapter: ServerAdapter = {
  ...genericAdapter,
  name: 'sciworld',
  resetReply(_id, observation, r) {
    const description = str(r.info['taskDescription'], '');
    const view = description !== '' && observation.startsWith(`${description}\n`) ? observation.slice(description.length + 1) : observation;
    return {
      task_name: str(r.info['taskName'], ''),
      var_num: num(r.info['variation'], 0),
      task_description: description,
      observation: view,
      reward: 0,
      score: num(r.info.score, 0),
      deleted: false,
      done: false,
    };
  },
};

/**
 * AgentGym SearchQA (`agentenv-searchqa`): `/create {"id"}` loads task `id` and answers the bare
 * `env_idx`; `/reset {"env_idx", "id"}` answers the bare prompt; `/step` answers
 * `{"observation", "reward", "done", "info": null}`.
 */
export const searchAdapter: ServerAdapter = {
  ...genericAdapter,
  name: 'search',
  idField: 'env_idx',
  indexField: 'id',
  resetOnCreate: true,
  createReply: (id) => id,
  resetReply: (_id, observation) => observation,
  stepReply: (observation, r) => withExtras({ observation, reward: r.reward, done: done(r), info: null }, r),
};

/** WebArena's site names (its config files' `sites`) for ours. */
const WEBARENA_SITES: Readonly<Record<string, string>> = { shop: 'shopping', forum: 'reddit' };

/** The objective line of a WebArena observation (envs/web/browser/observation.ts writes it last but one). */
function objectiveOf(observation: string): string {
  const start = observation.lastIndexOf('\nOBJECTIVE: ');
  if (start < 0) return '';
  const end = observation.indexOf('\nPREVIOUS ACTION: ', start);
  return observation.slice(start + '\nOBJECTIVE: '.length, end < 0 ? undefined : end);
}

function jsonInfo(info: StepResult['info']): Reply {
  const reply: Reply = {};
  for (const [key, value] of Object.entries(info)) if (value !== undefined) reply[key] = value;
  return reply;
}

/**
 * AgentGym WebArena (`agentenv-webarena`): the id field is `env_idx` and the task index `idx`;
 * /reset answers `{"observation", "sites", "object"}` (`object` is the objective, `sites` WebArena's
 * names); /step takes the model's whole reply, acts on its first ``` block (a bare action works
 * too) and answers `{"observation", "reward", "terminated", "truncated", "info"}`. A failed reset
 * also carries AgentGym's failure shape (`"observation": "TimeoutError"`), which AgentGym-RL's
 * client raises as its TimeoutError and skips the item, instead of failing on a missing key.
 */
export const webAdapter: ServerAdapter = {
  ...genericAdapter,
  name: 'web',
  idField: 'env_idx',
  indexField: 'idx',
  resetReply(_id, observation, r) {
    const site = str(r.info['site'], '');
    return { observation, sites: site === '' ? [] : [WEBARENA_SITES[site] ?? site], object: objectiveOf(observation) };
  },
  stepReply: (observation, r) => ({ observation, reward: r.reward, terminated: r.terminated, truncated: r.truncated, info: jsonInfo(r.info) }),
  stepAction: extractWebAction,
  resetFailure: (error) => ({ observation: 'TimeoutError', sites: 'Error', object: 'Error', ...error }),
};

const adapters: Readonly<Record<string, ServerAdapter>> = {
  generic: genericAdapter,
  babyai: babyaiAdapter,
  textcraft: textcraftAdapter,
  sciworld: sciworldAdapter,
  search: searchAdapter,
  web: webAdapter,
};

/** The adapter named `name`, else the one for env id `envId`, else the generic one. */
export function adapterFor(envId: string, name?: string): ServerAdapter {
  if (name !== undefined) {
    const chosen = adapters[name];
    if (!chosen) throw new Error(`unknown AgentGym adapter "${name}"; known: ${Object.keys(adapters).join(', ')}`);
    return chosen;
  }
  return adapters[envId] ?? genericAdapter;
}
