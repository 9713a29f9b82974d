/**
 * A reasoning model's thinking, kept out of what the env reads and what the next turn sends.
 * Reasoning models (DeepSeek-R1, Qwen3, QwQ) write `<think>…</think>` before their answer; the
 * thinking often drafts "Action: …" lines, which would make every reply a format error (several
 * markers), and sent back it grows each prompt by the whole of every past thought.
 *
 * `strip` (the default) removes every closed block, an unclosed block at the start (a reply cut
 * by `max_tokens` mid-thought: all of it is thinking), and everything before a closing tag with
 * no opening one (chat templates that put `<think>` in the prompt, so the reply starts inside it).
 * `keep` leaves the reply as it is. The trajectory always keeps the reply verbatim.
 */

export type ReasoningMode = 'strip' | 'keep';

export const REASONING_MODES: readonly ReasoningMode[] = ['strip', 'keep'];

const TAG = 'think';
const OPEN = new RegExp(`<${TAG}>`, 'i');
const CLOSE = new RegExp(`</${TAG}>`, 'i');
const BLOCK = new RegExp(`<${TAG}>[\\s\\S]*?</${TAG}>`, 'gi');

/** The reply without its thinking (see the file header), trimmed of the space the blocks leave; a reply without tags as it is. */
export function stripReasoning(reply: string): string {
  if (!OPEN.test(reply) && !CLOSE.test(reply)) return reply;
  let text = reply;
  const close = CLOSE.exec(text);
  const open = OPEN.exec(text);
  // A closing tag before any opening one: the reply began inside a thought.
  if (close !== null && (open === null || close.index < open.index)) text = text.slice(close.index + close[0].length);
  text = text.replace(BLOCK, '');
  // An opening tag left over has no end: the rest of the reply is thinking.
  const unclosed = OPEN.exec(text);
  if (unclosed !== null) text = text.slice(0, unclosed.index);
  return text.trim();
}

/** The reply as the env and the history see it under `mode`. */
export function visibleReply(reply: string, mode: ReasoningMode): string {
  return mode === 'strip' ? stripReasoning(reply) : reply;
}
