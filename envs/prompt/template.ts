/**
 * A prompt template (`PromptTemplate`, envs/contract.ts) from a family's words and reply rules.
 * The family files (envs/babyai/prompt.ts, …) and an app's own env supply them;
 * `createPromptTemplate` lays the turns out (render-turns.ts), so every family renders and reads
 * turns the same way.
 */
import type { ParsedReply, PromptOptions, PromptTemplate } from '../contract.ts';
import { readTurn, renderTurn } from './render-turns.ts';

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

/** Builds an env family's `PromptTemplate` from its framing text and reply contract; what each family's `prompt.ts` calls, and what an app's own env may call. */
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
