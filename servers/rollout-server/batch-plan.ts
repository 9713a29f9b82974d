/**
 * A checked request made a batch the runner can start: the env, the ordered tasks, the group
 * size, the horizon (given, or what the curriculum's schedule gives at the trainer's step), the
 * concurrency (capped by the service) and the policy endpoint. Whatever cannot run is a 400 naming
 * its field, before any episode starts.
 */
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import { horizonAt, parseSchedule, type AdaptiveSchedule } from '../../machines/schedule.ts';
import type { RolloutRequest } from './request-schema.ts';
import { RequestError } from './request-error.ts';

/** The endpoint whose model acts, token-exact (`openai:MODEL --tokenizer hf:DIR`). */
export interface BatchPolicy {
  readonly baseUrl: string;
  readonly model: string;
  /** The tokenizer folder (`hf:` taken off). */
  readonly tokenizer: string;
  readonly temperature?: number;
  /** Nucleus sampling mass in (0, 1], sent as `top_p`. */
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly apiKey?: string;
}

/** What the runner starts: every field resolved. Episodes are `tasks.length × groupSize`. */
export interface BatchSpec {
  /** The batch id (`x-rollout-id`); episode ids are `<id>-s<slot>a<attempt>`. */
  readonly id: string;
  readonly env: EnvDefinition;
  readonly split: Split;
  readonly tasks: readonly string[];
  readonly groupSize: number;
  readonly seed: number;
  readonly horizon: number;
  readonly concurrency: number;
  readonly policy: BatchPolicy;
}

export interface PlanLimits {
  /** Episodes running at once in one batch, at most (a larger `concurrency` is lowered to it). */
  readonly maxConcurrency: number;
  /** Episodes in one batch, at most. */
  readonly maxEpisodes: number;
}

function tasksOf(request: RolloutRequest, env: EnvDefinition): string[] {
  const split = env.tasks(request.split);
  if (request.tasks !== undefined) {
    const known = new Set(split);
    const unknown = request.tasks.find((task) => !known.has(task));
    if (unknown !== undefined) throw new RequestError(400, `tasks: "${unknown}" is not a ${request.split} task of env "${env.spec.id}" (${split.length} tasks, e.g. "${split[0]}")`, 'tasks');
    return request.tasks;
  }
  const offset = request.offset ?? 0;
  const count = request.count ?? 0;
  if (offset + count > split.length) {
    throw new RequestError(400, `count: offset ${offset} + count ${count} is past the ${split.length} ${request.split} tasks of env "${env.spec.id}"`, 'count');
  }
  return split.slice(offset, offset + count);
}

/** An adaptive curriculum's run, step and schedule, resolved to a horizon by the service's run curricula (./run-curricula.ts). */
export interface AdaptiveAsk {
  readonly run: string;
  readonly step: number;
  readonly schedule: AdaptiveSchedule;
}

/** How the plan gets an adaptive schedule's horizon; absent: the service keeps no curricula and refuses adaptive schedules. */
export type AdaptiveHorizon = (ask: AdaptiveAsk, tasks: number) => number;

function horizonOf(request: RolloutRequest, env: EnvDefinition, tasks: number, adaptive: AdaptiveHorizon | undefined): number {
  if (request.horizon !== undefined) return request.horizon;
  if (request.curriculum === undefined) return env.spec.defaultHorizon;
  const { schedule, step, run } = request.curriculum;
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) throw new RequestError(400, `curriculum.schedule: ${parsed.error}`, 'curriculum.schedule');
  if (parsed.value.kind !== 'adaptive') return horizonAt(parsed.value, step);
  if (adaptive === undefined) throw new RequestError(400, 'curriculum.schedule: this service keeps no adaptive curricula; use fixed:N or scaling:[…]@Δ, or send horizon', 'curriculum.schedule');
  if (run === undefined) throw new RequestError(400, 'curriculum.run: an adaptive schedule needs run, the trainer\'s run id: the service keeps one curriculum per run, fed by its batches', 'curriculum.run');
  return adaptive({ run, step, schedule: parsed.value }, tasks);
}

/**
 * The batch a request asks for, or a RequestError naming the field that cannot run. The horizon is
 * resolved last, once everything else is known to run: an adaptive one moves its run's step.
 */
export function planBatch(id: string, request: RolloutRequest, env: EnvDefinition, limits: PlanLimits, adaptive?: AdaptiveHorizon): BatchSpec {
  const tasks = tasksOf(request, env);
  const episodes = tasks.length * request.groupSize;
  if (episodes > limits.maxEpisodes) throw new RequestError(400, `the batch has ${episodes} episodes (tasks × groupSize), more than this service's ${limits.maxEpisodes}`, 'groupSize');
  const { policy } = request;
  const horizon = horizonOf(request, env, tasks.length, adaptive);
  return {
    id, env, split: request.split, tasks, groupSize: request.groupSize,
    seed: request.seed ?? 0,
    horizon,
    concurrency: Math.min(request.concurrency ?? limits.maxConcurrency, limits.maxConcurrency),
    policy: {
      baseUrl: policy.baseUrl, model: policy.model, tokenizer: policy.tokenizer.slice('hf:'.length),
      ...(policy.temperature !== undefined ? { temperature: policy.temperature } : {}),
      ...(policy.topP !== undefined ? { topP: policy.topP } : {}),
      ...(policy.maxTokens !== undefined ? { maxTokens: policy.maxTokens } : {}),
      ...(policy.apiKey !== undefined ? { apiKey: policy.apiKey } : {}),
    },
  };
}
