/**
 * The prompt of each env family, chosen by env id: how the LLM policy frames a task, lays out
 * each turn, and reads the model's reply; and how the policy server reads a conversation back.
 *
 * @example
 * const prompt = promptFor('babyai');
 * const first = prompt.firstTurn(reset.observation, reset.info.availableActions);
 * const parsed = prompt.parseReply('Thought: the ball is ahead.\nAction: go to red ball 1');
 * // parsed = { ok: true, action: 'go to red ball 1' }
 */
import { babyaiPrompt } from './babyai.ts';
import { genericPrompt } from './generic.ts';
import { sciworldPrompt } from './sciworld.ts';
import { searchPrompt } from './search.ts';
import type { PromptOptions, PromptTemplate } from './template.ts';
import { textcraftPrompt } from './textcraft.ts';
import { webPrompt } from './web.ts';

export type { CondenseRules, PromptOptions, PromptTemplate } from './template.ts';
export type { FormatError, ParsedReply } from '../parse-reply.ts';
export type { ReadTurn } from '../render-turns.ts';

const FAMILIES: Readonly<Record<string, (options: PromptOptions) => PromptTemplate>> = {
  babyai: babyaiPrompt,
  textcraft: textcraftPrompt,
  sciworld: sciworldPrompt,
  search: searchPrompt,
  web: webPrompt,
  // AgentGym's names for the same envs, as a remote AgentGym server calls them.
  searchqa: searchPrompt,
  scienceworld: sciworldPrompt,
  webarena: webPrompt,
};

/** The template of `envId`'s family; an unknown id gets the generic Thought/Action template. */
export function promptFor(envId: string, options: PromptOptions = {}): PromptTemplate {
  const make = Object.hasOwn(FAMILIES, envId.toLowerCase()) ? FAMILIES[envId.toLowerCase()] : undefined;
  return (make ?? genericPrompt)(options);
}
