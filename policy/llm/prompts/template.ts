/**
 * A prompt template: one env family's conversation contract. The family files (babyai.ts, …)
 * supply the words and the reply rules; `createPromptTemplate` lays the turns out
 * (render-turns.ts), so every family renders and reads turns the same way.
 */
import type { ParsedReply } from '../parse-reply.ts';
import { readTurn, renderTurn, type ReadTurn } from '../render-turns.ts';

/** Options of a prompt template (`promptFor(family, options)`). */
export interface PromptOptions {
  /** Append the env's available actions to each user turn when the env's own observation does not already show them (default false: AgentGym's prompts do not list them for TextCraft/SciWorld). */
  readonly listActions?: boolean;
}

/** One env family's conversation contract: the words of its turns and how its replies are read. */
export interface PromptTemplate {
  /** 'babyai' | 'textcraft' | 'sciworld' | 'search' | 'web' | 'generic'. */
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
   * How a turn is sent once a newer user turn follows it (history.ts `condensePast`); undefined =
   * verbatim. Web: a past page becomes its title and URL, a past reply its action, so a turn's
   * prompt holds one page, not fifteen.
   */
  readonly condensePast?: CondenseRules;
}

export interface CondenseRules {
  /** A past user turn (`first`: the one with the framing); its result must still be read by `readTurn`. */
  user(text: string, first: boolean): string;
  /** A past reply; its result must still parse to the same action. */
  assistant(text: string): string;
}

/** What a family file supplies. */
export interface FamilySpec {
  readonly family: string;
  /** The first turn's framing, before the reset observation. */
  readonly intro: string;
  /** Every message `parseReply` can return, so `readTurn` can take a note off a turn. */
  readonly notes: readonly string[];
  parseReply(reply: string): ParsedReply;
  formatReply(thought: string, action: string): string;
}

export function createPromptTemplate(spec: FamilySpec, options: PromptOptions = {}): PromptTemplate {
  const listActions = options.listActions ?? false;
  const withActions = (availableActions: readonly string[] | undefined) => (availableActions === undefined ? {} : { availableActions });
  return {
    family: spec.family,
    firstTurn: (observation, availableActions) => renderTurn({ intro: spec.intro, observation, ...withActions(availableActions), listActions }),
    nextTurn: (observation, availableActions, note) =>
      renderTurn({ ...(note !== undefined ? { note } : {}), observation, ...withActions(availableActions), listActions }),
    readTurn: (text, first) => (first ? readTurn(text, { intro: spec.intro }) : readTurn(text, { notes: spec.notes })),
    parseReply: (reply) => spec.parseReply(reply),
    formatReply: (thought, action) => spec.formatReply(thought, action),
  };
}
