/**
 * The template for an env without a family of its own (a remote AgentGym env, a new env): the
 * Thought/Action contract and nothing env-specific; the env's observations carry the task.
 */
import type { PromptOptions, PromptTemplate } from '../contract.ts';
import { formatThoughtAction, parseThoughtAction } from './parse-reply.ts';
import { THOUGHT_ACTION_NOTES, thoughtActionContract } from './reply-contract.ts';
import { createPromptTemplate } from './template.ts';

export const GENERIC_INTRO = [
  'You are an agent acting in a text environment. The first observation below states your task; every later turn shows what your last action did. ' +
    'Act one step at a time until the task is done, using the actions the environment describes.',
  '',
  thoughtActionContract('The observation says the door to the north is open, so I go through it.', 'go north'),
  '',
  'Your task:',
].join('\n');

/** The Thought/Action prompt for an env that brings none of its own. */
export function genericPrompt(options: PromptOptions = {}): PromptTemplate {
  return createPromptTemplate(
    {
      family: 'generic',
      intro: GENERIC_INTRO,
      notes: THOUGHT_ACTION_NOTES,
      parseReply: (reply) => parseThoughtAction(reply, 'plain'),
      formatReply: formatThoughtAction,
    },
    options,
  );
}
