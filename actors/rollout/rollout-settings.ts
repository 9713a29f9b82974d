/** Step 1 of a rollout: the options checked and their defaults filled in, before any actor exists. */
import type { EnvDefinition, Split } from '../../envs/contract.ts';
import { pickTasks } from '../../envs/pick-tasks.ts';
import type { SlotSpec } from '../../machines/run.machine.ts';
import { parseSchedule, type Schedule } from '../../machines/schedule.ts';
import { systemClock, type RunClock } from '../clock.ts';
import type { RolloutSlot, RolloutSystemOptions } from './rollout-options.ts';

export interface RolloutSettings {
  readonly split: Split;
  readonly slots: readonly SlotSpec[];
  readonly concurrency: number;
  readonly schedule: Schedule;
  readonly seed: number;
  readonly clock: RunClock;
  readonly runId: string;
  readonly envTimeoutMs: number;
  readonly agentTimeoutMs: number;
  readonly maxRetries: number;
  readonly maxLostRetries: number;
}

/** Throws on a bad option (no tasks, episodes and slots both given, a bad concurrency or schedule). */
export function rolloutSettings(options: RolloutSystemOptions): RolloutSettings {
  const { env: definition } = options;
  const split = options.split ?? 'test';
  const tasks = definition.tasks(split);
  if (tasks.length === 0) throw new Error(`env "${definition.spec.id}" has no ${split} tasks`);
  if (options.slots !== undefined && options.episodes !== undefined) throw new Error('give episodes or slots, not both');
  const seed = options.seed ?? 0;
  const episodes = options.episodes ?? tasks.length;
  const slots = options.slots ? explicitSlots(options.slots) : cycledSlots(taskOrder(definition, split, tasks, episodes, options, seed), episodes);
  const concurrency = options.concurrency ?? 16;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  const schedule = resolveSchedule(options.schedule, definition.spec.defaultHorizon);
  return {
    split,
    slots,
    concurrency,
    schedule,
    seed,
    clock: options.clock ?? systemClock,
    runId: options.runId ?? `run-${seed}`,
    envTimeoutMs: options.envTimeoutMs ?? 30_000,
    agentTimeoutMs: options.agentTimeoutMs ?? 120_000,
    maxRetries: options.maxRetries ?? 1,
    maxLostRetries: options.maxLostRetries ?? 10,
  };
}

/** A schedule given as a value, as text (`fixed:N`, `scaling:[…]@Δ`), or not at all (the env's horizon). */
export function resolveSchedule(schedule: Schedule | string | undefined, fallbackHorizon: number): Schedule {
  if (schedule === undefined) return { kind: 'fixed', horizon: fallbackHorizon };
  if (typeof schedule !== 'string') return schedule;
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/** The tasks the slots cycle over: the split as listed, unless a pick or a shuffle chooses (envs/pick-tasks.ts). */
function taskOrder(definition: EnvDefinition, split: Split, tasks: readonly string[], episodes: number, options: RolloutSystemOptions, seed: number): readonly string[] {
  const picking = options.pick === 'stratified' && episodes < tasks.length;
  if (!picking && !options.shuffle) return tasks;
  return pickTasks(definition, split, { count: episodes, pick: options.pick ?? 'first', shuffle: options.shuffle === true, seed });
}

function cycledSlots(tasks: readonly string[], episodes: number): SlotSpec[] {
  if (!Number.isInteger(episodes) || episodes < 1) throw new Error(`episodes must be a positive integer, got ${episodes}`);
  return Array.from({ length: episodes }, (_, slot) => ({ slot, taskId: tasks[slot % tasks.length] as string, groupKey: `${slot}` }));
}

function explicitSlots(given: readonly RolloutSlot[]): SlotSpec[] {
  if (given.length === 0) throw new Error('slots must name at least one slot');
  const keys = new Set<number>();
  return given.map(({ taskId, key }) => {
    if (!(Number.isSafeInteger(key) && key >= 0)) throw new Error(`slot key must be a non-negative integer, got ${key}`);
    if (keys.has(key)) throw new Error(`slot key ${key} is given twice`);
    keys.add(key);
    return { slot: key, taskId, groupKey: `${key}` };
  });
}
