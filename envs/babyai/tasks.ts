/**
 * Task ids and splits. A task id is `<level>/<seed>` (e.g. `GoToRedBall/3`): the level is
 * one of AgentGym's BabyAI levels we implement, the seed fixes the layout and mission. The
 * splits draw from the 18 levels of AgentGym's evaluation mix. Any well-formed id can be played; the splits list fixed, disjoint seed ranges.
 */
import { EnvError, type Split } from '../contract.ts';
import { GOTO_LEVELS } from './levels-goto.ts';
import { OTHER_LEVELS } from './levels-other.ts';
import { MORE_LEVELS } from './levels-more.ts';
import type { Family, LevelSpec } from './level.ts';

/** The 18 levels of AgentGym's evaluation mix, which our splits draw from. */
export const LEVELS: readonly LevelSpec[] = [...GOTO_LEVELS, ...OTHER_LEVELS];
/** Every level we implement: the mix and the other levels of AgentGym's 40 (agentgym-index.ts). */
export const ALL_LEVELS: readonly LevelSpec[] = [...LEVELS, ...MORE_LEVELS];
export const LEVEL_BY_NAME: ReadonlyMap<string, LevelSpec> = new Map(ALL_LEVELS.map((l) => [l.name, l]));

/** Test: 5 seeds per level, so GoTo 55 (11 levels), Pickup 15 (3), and 5 for each other family. */
export const TEST_SEEDS = { first: 0, count: 5 } as const;
/** Train: 80 seeds per level from a range that never meets the test range (1,440 tasks). */
export const TRAIN_SEEDS = { first: 1000, count: 80 } as const;

export const MAX_SEED = 2 ** 31 - 1;

export interface ParsedTask {
  readonly level: LevelSpec;
  readonly seed: number;
  /**
   * `<level>/<seed>/minigrid`: the grid minigrid builds at `reset(seed=seed)`, as AgentGym's server
   * does (numpy's stream, minigrid's accidents; envs/babyai/level.ts). `<level>/<seed>` is ours.
   */
  readonly minigrid: boolean;
}

export function parseTaskId(taskId: string): ParsedTask {
  const match = /^([A-Za-z0-9]+)\/(\d{1,10})(\/minigrid)?$/.exec(taskId);
  const level = match ? LEVEL_BY_NAME.get(match[1] as string) : undefined;
  const seed = match ? Number(match[2]) : NaN;
  if (!level || !(seed <= MAX_SEED)) {
    throw new EnvError(
      'TASK_UNKNOWN',
      `unknown babyai task "${taskId}"; expected <level>/<seed> or <level>/<seed>/minigrid with level one of ${ALL_LEVELS.map((l) => l.name).join(', ')}`,
    );
  }
  return { level, seed, minigrid: match?.[3] !== undefined };
}

export function familyOf(taskId: string): Family {
  return parseTaskId(taskId).level.family;
}

const splitCache = new Map<Split, readonly string[]>();

export function babyaiTasks(split: Split): readonly string[] {
  if (split === 'test-templates') return []; // BabyAI has no held-out templates
  let ids = splitCache.get(split);
  if (!ids) {
    const { first, count } = split === 'test' ? TEST_SEEDS : TRAIN_SEEDS;
    const list: string[] = [];
    for (const level of LEVELS) for (let s = first; s < first + count; s++) list.push(`${level.name}/${s}`);
    ids = Object.freeze(list);
    splitCache.set(split, ids);
  }
  return ids;
}
