/**
 * Reading an action out of a Deep Search reply. AgentGym's SearchQA server
 * (agentenv-searchqa/agentenv_searchqa/env_wrapper.py, `step`) takes the first match of
 * `<(search|answer)>(.*?)</\1>` across lines, content stripped; a reply without one is an invalid
 * action. Our search env (envs/search/grammar.ts) parses the same way, so the policy takes the
 * same first tag and hands the env that tag, rewritten as `<search> query </search>` (the form the
 * env's oracle writes, so trajectories read alike); the env reads the same tag and content back.
 */
import type { ParsedReply } from '../contract.ts';
import { NO_ACTION_ENV_ACTION } from './parse-reply.ts';

export const NO_TAG_MESSAGE =
  'Format error: your last reply had no <search>...</search> or <answer>...</answer> tag, so nothing was searched or answered. ' +
  'Think inside <think>...</think>, then write one <search>query</search> or <answer>answer</answer>.';

const FIRST_TAG = /<(search|answer)>([\s\S]*?)<\/\1>/;

/** The first complete `<search>` or `<answer>` tag of the reply, or `no_tag`. */
export function parseTagReply(reply: string): ParsedReply {
  const match = FIRST_TAG.exec(reply);
  if (match === null) return { ok: false, error: 'no_tag', message: NO_TAG_MESSAGE, envAction: NO_ACTION_ENV_ACTION };
  return { ok: true, action: tagAction(match[1] as 'search' | 'answer', (match[2] as string).trim()) };
}

/** `<search> query </search>` / `<answer> text </answer>`; an empty content stays empty. */
export function tagAction(tag: 'search' | 'answer', content: string): string {
  return content === '' ? `<${tag}></${tag}>` : `<${tag}> ${content} </${tag}>`;
}

/** A reply that thinks, then acts: `parseTagReply` reads `action` back when it is a tag. */
export function formatTagReply(thought: string, action: string): string {
  // A tag inside the thought would be taken before the action.
  const safeThought = thought.replace(/<\/?(?:search|answer|think)>/g, '').trim();
  return `<think> ${safeThought} </think>\n${action}`;
}
