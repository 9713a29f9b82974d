/**
 * Trimming an episode's conversation (`--history-turns`, `--max-context-tokens`): the head
 * (system message and first user turn) and the newest user turn always stay, whole exchanges go,
 * oldest first, and the result still alternates user/assistant. Issue 23.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../policy/llm/chat-types.ts';
import { trimHistory } from '../../../policy/llm/history.ts';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

/** system?, u0, then `exchanges` × (a_i, u_i): an episode at turn `exchanges`. */
function conversation(exchanges: number, system = true): ChatMessage[] {
  const out: ChatMessage[] = system ? [{ role: 'system', content: 'sys' }] : [];
  out.push(user('u0'));
  for (let i = 1; i <= exchanges; i++) out.push(assistant(`a${i}`), user(`u${i}`));
  return out;
}

const contents = (ms: readonly ChatMessage[]) => ms.map((m) => m.content);

/** The invariants every trimmed conversation keeps. */
function expectWellFormed(trimmed: readonly ChatMessage[], original: readonly ChatMessage[]): void {
  const head = original.slice(0, original.findIndex((m) => m.role === 'user') + 1);
  expect(trimmed.slice(0, head.length)).toEqual(head);
  expect(trimmed.at(-1)).toEqual(original.at(-1));
  const turns = trimmed.filter((m) => m.role !== 'system');
  turns.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant'));
  // What is kept is a suffix of the exchanges, in order.
  const rest = trimmed.slice(head.length);
  expect(original.slice(original.length - rest.length)).toEqual(rest);
}

describe('trimHistory', () => {
  it('keeps everything without options', () => {
    const c = conversation(5);
    expect(trimHistory(c, {})).toEqual(c);
    expect(trimHistory(c, {})).not.toBe(c);
  });

  it('historyTurns keeps the first user turn and the last N exchanges', () => {
    const c = conversation(5);
    expect(contents(trimHistory(c, { historyTurns: 2 }))).toEqual(['sys', 'u0', 'a4', 'u4', 'a5', 'u5']);
    expect(contents(trimHistory(conversation(5, false), { historyTurns: 1 }))).toEqual(['u0', 'a5', 'u5']);
    expect(trimHistory(c, { historyTurns: 10 })).toEqual(c);
    for (let n = 0; n <= 6; n++) expectWellFormed(trimHistory(c, { historyTurns: n }), c);
  });

  it('historyTurns 0 still sends the newest observation (the exchange that holds it)', () => {
    expect(contents(trimHistory(conversation(3), { historyTurns: 0 }))).toEqual(['sys', 'u0', 'a3', 'u3']);
  });

  it('at turn 0 there is nothing to drop', () => {
    const c = conversation(0);
    expect(trimHistory(c, { historyTurns: 0, maxContextTokens: 1 })).toEqual(c);
  });

  it('maxContextTokens drops the oldest exchanges until the estimate fits (default: ceil(chars / 4))', () => {
    // Every message is 8 characters = 2 tokens; head 4 tokens, each exchange 4.
    const pad = (s: string) => s.padEnd(8, '.');
    const c = conversation(4).map((m) => ({ ...m, content: pad(m.content) }));
    expect(trimHistory(c, { maxContextTokens: 20 })).toEqual(c);
    expect(contents(trimHistory(c, { maxContextTokens: 19 }))).toEqual(['sys.....', 'u0......', 'a2......', 'u2......', 'a3......', 'u3......', 'a4......', 'u4......']);
    expect(contents(trimHistory(c, { maxContextTokens: 12 }))).toEqual(['sys.....', 'u0......', 'a3......', 'u3......', 'a4......', 'u4......']);
    for (let budget = 0; budget <= 24; budget++) expectWellFormed(trimHistory(c, { maxContextTokens: budget }), c);
  });

  it('never drops the head or the newest exchange, even when they alone are over the budget', () => {
    const c = conversation(3);
    expect(contents(trimHistory(c, { maxContextTokens: 0 }))).toEqual(['sys', 'u0', 'a3', 'u3']);
  });

  it('uses the given token counter, and measures what historyTurns kept', () => {
    const c = conversation(6);
    const words = (text: string) => text.split(' ').length;
    // One "token" a message: head 2, each exchange 2.
    expect(contents(trimHistory(c, { maxContextTokens: 6, countTokens: words }))).toEqual(['sys', 'u0', 'a5', 'u5', 'a6', 'u6']);
    expect(contents(trimHistory(c, { historyTurns: 3, maxContextTokens: 100, countTokens: words }))).toEqual(['sys', 'u0', 'a4', 'u4', 'a5', 'u5', 'a6', 'u6']);
    expect(contents(trimHistory(c, { historyTurns: 3, maxContextTokens: 4, countTokens: words }))).toEqual(['sys', 'u0', 'a6', 'u6']);
  });

  it('a long reply costs its exchange: the budget counts every message', () => {
    const c = [user('u0'), assistant('x'.repeat(400)), user('u1'), assistant('a2'), user('u2')];
    expect(contents(trimHistory(c, { maxContextTokens: 50 }))).toEqual(['u0', 'a2', 'u2']);
  });

  it('keeps the newest user turn when the conversation ends with a reply', () => {
    const c = [user('u0'), assistant('a1'), user('u1'), assistant('a2')];
    expect(contents(trimHistory(c, { historyTurns: 0 }))).toEqual(['u0', 'a1', 'u1', 'a2']);
    expect(contents(trimHistory(c, { maxContextTokens: 0 }))).toEqual(['u0', 'a1', 'u1', 'a2']);
  });
});
