/**
 * The environment contract, after Gymnasium: `reset` then `step` until `terminated` or
 * `truncated`, then `close`. Every method is async so an in-process env and a remote one
 * (WebSocket, AgentGym HTTP) are interchangeable. Observations and actions are text.
 */
import type { SymmetryGroups } from './symmetries.ts';

/**
 * Which half of an env's tasks: `train` for learning, `test` for held-out evaluation (never
 * sharing a task id).
 */
export type Split = 'train' | 'test';

/** JSON-serialisable values, for info fields that cross the wire. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What an env family is: its registry id, default horizon, split sizes and reward scale. */
export interface EnvSpec {
  /** Registry id, e.g. `babyai`. */
  readonly id: string;
  /** One line for `actorgym envs`. */
  readonly description: string;
  /** Default interaction horizon (maxTurns) when a run does not set one. */
  readonly defaultHorizon: number;
  /** Number of tasks in each split. Task ids come from `EnvDefinition.tasks`. */
  readonly splits: Readonly<Record<Split, number>>;
  /** The reward an episode gets on success is at most this (BabyAI: 1, SciWorld: 100 before scaling). */
  readonly maxReward: number;
  /**
   * Groups of words the env's dynamics treat alike (BabyAI: the six colours): renaming them by one
   * consistent permutation in every observation and action gives an equally valid episode.
   * Training may relabel them per episode (`--relabel`, policy/relabel.ts).
   */
  readonly symmetries?: SymmetryGroups;
}

/** Arguments of `Env.reset`: the task to play and the seed of its randomness. */
export interface ResetOptions {
  /** A task id from one of the env's splits; it fixes the task completely. */
  readonly taskId: string;
  /** Seed for any randomness inside the episode; the same task id and seed replay the same episode. */
  readonly seed?: number;
}

/**
 * Side information of a reset or a step (available actions, score, success); JSON so it can cross
 * the wire.
 */
export interface StepInfo {
  /** The actions the env accepts now, when it can list them (BabyAI, TextCraft). */
  readonly availableActions?: readonly string[];
  /** Env-specific score (SciWorld 0–100); reward stays the training signal. */
  readonly score?: number;
  /** True when the action could not be executed (the observation carries the env's message). */
  readonly invalidAction?: boolean;
  /** True when the episode ended in success. Only meaningful with `terminated`. */
  readonly success?: boolean;
  readonly [key: string]: JsonValue | undefined;
}

/** What `Env.reset` returns: the first observation and its info. */
export interface ResetResult {
  /** The first observation: the instruction/goal and the initial view. */
  readonly observation: string;
  readonly info: StepInfo;
}

/**
 * What `Env.step` returns, after Gymnasium: observation, reward, and `terminated` kept apart from
 * `truncated`.
 */
export interface StepResult {
  readonly observation: string;
  readonly reward: number;
  /** The env ended the episode (goal reached or failed for good). */
  readonly terminated: boolean;
  /** The env cut the episode for its own limit (e.g. BabyAI's max primitive steps). */
  readonly truncated: boolean;
  readonly info: StepInfo;
}

/**
 * One env instance, after Gymnasium: `reset` to a task, `step` with a text action until
 * `terminated` or `truncated`, then `close`. Async, so an in-process env and a remote one are
 * interchangeable.
 */
export interface Env {
  readonly spec: EnvSpec;
  reset(options: ResetOptions): Promise<ResetResult>;
  step(action: string): Promise<StepResult>;
  close(): Promise<void>;
}

/**
 * An oracle reads the env's own state and returns the next action toward the goal. Async so
 * that a remote env can ask its server's oracle (`oracle` op in docs/protocol.md).
 */
export interface Oracle {
  next(): Promise<string>;
}

/**
 * What the registry holds for an env family: how to make instances and list tasks, and an
 * optional oracle bound to a local instance.
 */
export interface EnvDefinition {
  readonly spec: EnvSpec;
  /** Task ids of a split, in a fixed order. Train and test never share an id. */
  tasks(split: Split): readonly string[];
  make(): Env;
  /**
   * The task's sub-category, as the paper's tables group tasks (BabyAI level family, TextCraft
   * crafting depth, SciWorld task family, Search hop count). Pure and cheap: read from the task
   * id, never by resetting an env. Evaluation reports Avg@n and Pass@k per category; an env
   * without it is reported overall only. An id that is not one of the env's tasks is a
   * `TASK_UNKNOWN` error.
   */
  categoryOf?(taskId: string): string;
  /** An oracle that solves the task `env` was last reset to, from the env's internal state. */
  oracle?(env: Env): Oracle;
  /**
   * AgentGym's own `data_idx` ↔ task id mapping, when the env reproduces it (BabyAI: level
   * `data_idx % 40`, seed `data_idx // 40`). Without it, data_idx indexes the test tasks, then
   * the train tasks.
   */
  readonly agentgymIndex?: AgentGymTaskIndex;
}

/** data_idx ↔ task id. `taskIdAt` may throw `TASK_UNKNOWN` to name a task it cannot serve. */
export interface AgentGymTaskIndex {
  readonly size: number;
  taskIdAt(dataIdx: number): string | undefined;
  dataIdxOf(taskId: string): number | undefined;
}

/** Errors are values with a literal code (see docs/protocol.md for the wire mapping). */
export type EnvErrorCode =
  | 'ENV_UNKNOWN'
  | 'ENV_NOT_RESET'
  | 'ENV_CLOSED'
  | 'TASK_UNKNOWN'
  | 'ENV_LOST'
  | 'ENV_TIMEOUT'
  | 'PROTOCOL_ERROR'
  | 'ENV_INTERNAL';

/**
 * An env failure as a value with a literal `code` (`EnvErrorCode`), the same in-process and over
 * the wire (docs/protocol.md).
 */
export class EnvError extends Error {
  override readonly name = 'EnvError';
  constructor(
    readonly code: EnvErrorCode,
    message: string,
  ) {
    super(message);
  }
}
