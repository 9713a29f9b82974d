/**
 * `checkEnv`: Gymnasium-style conformance check that every env family passes in the tests.
 * It checks the spec and splits, the lifecycle errors (step before reset, unknown task,
 * use after close), the shapes of results, and that a task id and seed replay the same
 * episode under a scripted policy. It throws an Error naming the first thing that failed.
 */
import { Rng } from './rng.ts';
import { checkSymmetryGroups } from './symmetries.ts';
import { EnvError, type Env, type EnvDefinition, type EnvErrorCode, type StepInfo } from './contract.ts';

export interface CheckEnvOptions {
  /** Tasks to replay; defaults to the first task of each split. */
  readonly taskIds?: readonly string[];
  /** Steps per scripted episode (default 12). */
  readonly steps?: number;
  /** Seed of the scripted policy and of `reset` (default 7). */
  readonly seed?: number;
  /** Actions to try when the env lists none in `info.availableActions` (default `['look']`). */
  readonly fallbackActions?: readonly string[];
  /** A task id the env must reject with `TASK_UNKNOWN` (default `'\u0000no-such-task'`). */
  readonly unknownTaskId?: string;
}

interface TraceStep {
  readonly action: string;
  readonly observation: string;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly info: string;
}

/**
 * Gymnasium-style conformance check of an env family: spec and splits, lifecycle errors (step
 * before reset, unknown task, use after close), result shapes, and that a task id and seed replay
 * the same episode. Throws an Error naming the first thing that failed.
 */
export async function checkEnv(definition: EnvDefinition, options: CheckEnvOptions = {}): Promise<void> {
  const spec = definition.spec;
  const fail = (what: string): never => {
    throw new Error(`checkEnv(${spec?.id ?? '?'}): ${what}`);
  };
  checkSpecAndSplits(definition, fail);

  const env = definition.make();
  await expectEnvError(() => env.step('look'), 'ENV_NOT_RESET', 'step() before reset()', fail);
  const unknown = options.unknownTaskId ?? '\u0000no-such-task';
  await expectEnvError(() => env.reset({ taskId: unknown }), 'TASK_UNKNOWN', `reset() with unknown task "${unknown}"`, fail);

  const tasks = options.taskIds ?? [definition.tasks('test')[0], definition.tasks('train')[0]].filter((t) => t !== undefined);
  for (const taskId of tasks) {
    const first = await rollout(env, taskId, options, fail);
    const other = definition.make();
    const second = await rollout(other, taskId, options, fail);
    await other.close();
    const diff = firstDifference(first, second);
    if (diff !== null) fail(`task "${taskId}" with the same seed did not replay identically: ${diff}`);
  }

  await env.close();
  await expectEnvError(() => env.reset({ taskId: tasks[0] ?? 'x' }), 'ENV_CLOSED', 'reset() after close()', fail);
  await expectEnvError(() => env.step('look'), 'ENV_CLOSED', 'step() after close()', fail);
}

function checkSpecAndSplits(definition: EnvDefinition, fail: (what: string) => never): void {
  const spec = definition.spec;
  if (typeof spec.id !== 'string' || spec.id.length === 0) fail('spec.id must be a non-empty string');
  if (typeof spec.description !== 'string' || spec.description.length === 0) fail('spec.description must be a non-empty string');
  if (!Number.isInteger(spec.defaultHorizon) || spec.defaultHorizon <= 0) fail('spec.defaultHorizon must be a positive integer');
  if (!Number.isFinite(spec.maxReward) || spec.maxReward <= 0) fail('spec.maxReward must be a positive finite number');
  if (spec.symmetries !== undefined) {
    try {
      checkSymmetryGroups(spec.symmetries);
    } catch (error) {
      fail(`spec.symmetries: ${(error as Error).message}`);
    }
  }
  const seen = new Map<string, string>();
  for (const split of ['train', 'test'] as const) {
    const ids = definition.tasks(split);
    if (ids.length !== spec.splits[split]) {
      fail(`split "${split}" has ${ids.length} tasks but spec.splits.${split} says ${spec.splits[split]}`);
    }
    for (const id of ids) {
      if (typeof id !== 'string' || id.length === 0) fail(`split "${split}" has a task id that is not a non-empty string`);
      const where = seen.get(id);
      if (where === split) fail(`task "${id}" appears twice in split "${split}"`);
      if (where !== undefined) fail(`task "${id}" is in both splits "${where}" and "${split}"`);
      seen.set(id, split);
    }
  }
}

async function rollout(env: Env, taskId: string, options: CheckEnvOptions, fail: (what: string) => never): Promise<TraceStep[]> {
  const seed = options.seed ?? 7;
  const rng = new Rng(seed);
  const reset = await env.reset({ taskId, seed });
  if (typeof reset.observation !== 'string') fail(`reset("${taskId}").observation is not a string`);
  checkInfo(reset.info, `reset("${taskId}").info`, fail);
  const trace: TraceStep[] = [{ action: '', observation: reset.observation, reward: 0, terminated: false, truncated: false, info: json(reset.info, fail) }];
  let info = reset.info;
  for (let t = 0; t < (options.steps ?? 12); t++) {
    const listed = info.availableActions ?? [];
    const choices = listed.length > 0 ? listed : (options.fallbackActions ?? ['look']);
    const action = rng.pick(choices);
    const r = await env.step(action);
    const where = `step ${t} of "${taskId}" (action "${action}")`;
    if (typeof r.observation !== 'string') fail(`${where}: observation is not a string`);
    if (typeof r.reward !== 'number' || !Number.isFinite(r.reward)) fail(`${where}: reward ${String(r.reward)} is not a finite number`);
    if (typeof r.terminated !== 'boolean' || typeof r.truncated !== 'boolean') fail(`${where}: terminated/truncated must be booleans`);
    checkInfo(r.info, `${where}: info`, fail);
    trace.push({ action, observation: r.observation, reward: r.reward, terminated: r.terminated, truncated: r.truncated, info: json(r.info, fail) });
    info = r.info;
    if (r.terminated || r.truncated) break;
  }
  return trace;
}

function checkInfo(info: StepInfo, where: string, fail: (what: string) => never): void {
  if (typeof info !== 'object' || info === null || Array.isArray(info)) fail(`${where} is not an object`);
  const actions = info.availableActions;
  if (actions !== undefined && (!Array.isArray(actions) || actions.some((a) => typeof a !== 'string'))) {
    fail(`${where}.availableActions is not a list of strings`);
  }
  for (const flag of ['invalidAction', 'success'] as const) {
    if (info[flag] !== undefined && typeof info[flag] !== 'boolean') fail(`${where}.${flag} is not a boolean`);
  }
}

function json(value: unknown, fail: (what: string) => never): string {
  try {
    return JSON.stringify(value);
  } catch {
    return fail('an info object is not JSON-serialisable');
  }
}

function firstDifference(a: readonly TraceStep[], b: readonly TraceStep[]): string | null {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (!x || !y) return `one run has ${a.length} steps, the other ${b.length}`;
    for (const field of ['action', 'observation', 'reward', 'terminated', 'truncated', 'info'] as const) {
      if (x[field] !== y[field]) return `${i === 0 ? 'reset' : `step ${i - 1}`} differs in ${field}`;
    }
  }
  return null;
}

async function expectEnvError(
  call: () => Promise<unknown>,
  code: EnvErrorCode,
  what: string,
  fail: (what: string) => never,
): Promise<void> {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  if (error === undefined) fail(`${what} must fail with EnvError ${code}, but it succeeded`);
  if (!(error instanceof EnvError) || error.code !== code) {
    const got = error instanceof EnvError ? `EnvError ${error.code}` : String(error);
    fail(`${what} must fail with EnvError ${code}, got ${got}`);
  }
}
