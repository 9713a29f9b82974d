/**
 * Deep Search: our words for AgentGym's SearchQA task (this env). The reset observation is
 * the env's own instructions (AgentGym's, verbatim) and the question; a search is answered with
 * an `<information>` block of the top passages, an answer with a right/wrong message.
 */
import type { PromptOptions, PromptTemplate } from '../contract.ts';
import { NO_TAG_MESSAGE, formatTagReply, parseTagReply, tagAction } from '../prompt/parse-tags.ts';
import { createPromptTemplate } from '../prompt/template.ts';

export const SEARCH_INTRO = [
  'You answer questions with the help of a search engine over an encyclopedia. Some questions take several searches, one fact at a time.',
  '',
  'In every reply, first reason inside <think>...</think>. Then write exactly one of:',
  '- <search>a query</search> to look something up; the best passages come back inside <information>...</information>;',
  '- <answer>the answer</answer> when you know it: a few words, just the name, number or phrase asked for.',
  'Only the first <search> or <answer> in a reply counts. A wrong answer can be tried again; a right one ends the task.',
  '',
  'Example reply:',
  formatTagReply('I need to know which river flows through Vienna before I can go on.', tagAction('search', 'river that flows through Vienna')),
  '',
  'Your task:',
].join('\n');

export function searchPrompt(options: PromptOptions = {}): PromptTemplate {
  return createPromptTemplate(
    { family: 'search', intro: SEARCH_INTRO, notes: [NO_TAG_MESSAGE], parseReply: parseTagReply, formatReply: formatTagReply },
    options,
  );
}
