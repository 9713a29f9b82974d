/**
 * The environment contract, after Gymnasium: `reset` then `step` until `terminated` or
 * `truncated`, then `close`. Every method is async so an in-process env and a remote one
 * (WebSocket, AgentGym HTTP) are interchangeable. Observations and actions are text.
 */
import { genericPrompt } from './prompt/generic.ts';
import type { SymmetryGroups } from './symmetries.ts';

export { checkSymmetryGroups, type SymmetryGroups } from './symmetries.ts';

/**
 * Which part of an env's tasks: `train` for learning, `test` for held-out evaluation (never
 * sharing a task id), and `test-templates`, held-out evaluation on task templates that no train
 * task uses (the web env has it; an env without it lists no tasks for it).
 */
export type Split = 'train' | 'test' | 'test-templates';

/** Every split name, for option choices and schemas. */
export const SPLITS: readonly Split[] = ['train', 'test', 'test-templates'];

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
  /**
   * Number of tasks in each split. Task ids come from `EnvDefinition.tasks`. `test-templates` is
   * optional: an env that declares none lists no tasks for it.
   */
  readonly splits: Readonly<Record<'train' | 'test', number>> & { readonly 'test-templates'?: number };
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
  /**
   * How an LLM is prompted in this env: the task framing, the action grammar, the reply contract
   * and how a reply is read (as AgentGym keeps them with each env client). The built-in families
   * bring theirs (envs/<family>/prompt.ts, written with envs/prompt/template.ts); an env without
   * one is framed by the generic Thought/Action prompt (`promptOf`).
   */
  prompt?(options?: PromptOptions): PromptTemplate;
}

/** The prompt an LLM policy uses for `definition`: its own, else the generic Thought/Action prompt. */
export function promptOf(definition: Pick<EnvDefinition, 'prompt'>, options: PromptOptions = {}): PromptTemplate {
  return definition.prompt?.(options) ?? genericPrompt(options);
}

// ---------------------------------------------------------------- the prompt contract

/** How an env family's LLM prompt is rendered. */
export interface PromptOptions {
  /** Append the env's available actions to each user turn when the env's own observation does not already show them (default false: AgentGym's prompts do not list them for TextCraft/SciWorld). */
  readonly listActions?: boolean;
}

/**
 * One env family's conversation contract: how the LLM policy frames a task, lays out each turn
 * and reads the model's reply, and how the policy server reads a conversation back.
 *
 * @example
 * const prompt = promptOf(getEnv('babyai'));
 * const first = prompt.firstTurn(reset.observation, reset.info.availableActions);
 * const parsed = prompt.parseReply('Thought: the ball is ahead.\nAction: go to red ball 1');
 * // parsed = { ok: true, action: 'go to red ball 1' }
 */
export interface PromptTemplate {
  /** 'babyai' | 'textcraft' | 'sciworld' | 'search' | 'web' | 'generic', or an app env's own name. */
  readonly family: string;
  /** Optional system message (undefined = none; AgentGym puts everything in the first user turn). */
  readonly system?: string;
  /** The first user turn: task framing + grammar + the reply contract, then the reset observation verbatim (and the action list when listActions and the observation lacks one). */
  firstTurn(observation: string, availableActions?: readonly string[]): string;
  /** A later user turn: `note` (a FormatError message) first when set, then the observation verbatim (+ action list as above). */
  nextTurn(observation: string, availableActions?: readonly string[], note?: string): string;
  /**
   * From a user turn this template rendered: the observation verbatim and the action list shown in
   * it; undefined when the text is not a turn of this template. A later turn is read whatever
   * `listActions` the rendering template had.
   */
  readTurn(text: string, first: boolean): ReadTurn | undefined;
  parseReply(reply: string): ParsedReply;
  /** How an action is written as a reply (`Thought: ...\nAction: <action>`; Deep Search as tags). */
  formatReply(thought: string, action: string): string;
  /**
   * How a turn is sent once a newer user turn follows it (policy/llm/history.ts `condensePast`);
   * undefined = verbatim. Web: a past page becomes its title and URL, a past reply its action, so
   * a turn's prompt holds one page, not fifteen.
   */
  readonly condensePast?: CondenseRules;
}

/** How past turns are shortened once a newer turn follows them (`PromptTemplate.condensePast`). */
export interface CondenseRules {
  /** A past user turn (`first`: the one with the framing); its result must still be read by `readTurn`. */
  user(text: string, first: boolean): string;
  /** A past reply; its result must still parse to the same action. */
  assistant(text: string): string;
}

/** What `readTurn` gives back: the observation verbatim and the actions the turn shows. */
export interface ReadTurn {
  readonly observation: string;
  /** The actions the turn shows: the env's own `Available actions: [...]` line, or our appended list. */
  readonly availableActions?: readonly string[];
}

/** Why a reply named no action: none, more than one, or a missing tag. */
export type FormatError = 'no_action' | 'multiple_actions' | 'no_tag';

/** A reply read by `PromptTemplate.parseReply`: the action, or the format error it makes. */
export type ParsedReply =
  | { readonly ok: true; readonly action: string }
  | {
      readonly ok: false;
      readonly error: FormatError;
      /** What the model is told on its next user turn, before the env's observation. */
      readonly message: string;
      /** The text the env is sent as this turn's action (the env rejects it as an invalid action; the turn counts). */
      readonly envAction: string;
    };

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
