/**
 * Issue 36 (items 3 and 4): `encodeEpisode` renders a conversation to the ids HfPolicy holds, and
 * those must be the chat template's render of the whole conversation, tokenized — with mask 1
 * exactly on each reply and the end-of-turn id that closes it.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../../policy/hf/tokenizer/index.ts';
import { loadHfTokenizer } from '../../../../policy/hf/tokenizer/index.ts';
import { demoTurns, encodeEpisode, endOfTurnId } from '../../../../policy/hf/agent/index.ts';
import { babyai, CHAT_MODELS, chatDir, TURNS } from './support.ts';

describe.each(CHAT_MODELS)('encodeEpisode on %s', (name) => {
  const tokenizer = loadHfTokenizer(chatDir(name), { vocabSize: 384 });
  const prompt = babyai();

  /** The conversation as an LLM policy would send it, format-error notes included. */
  function messages(): ChatMessage[] {
    const out: ChatMessage[] = [];
    let note: string | undefined;
    for (const [i, turn] of TURNS.entries()) {
      out.push({ role: 'user', content: i === 0 ? prompt.firstTurn(turn.observation, turn.availableActions) : prompt.nextTurn(turn.observation, turn.availableActions, note) });
      out.push({ role: 'assistant', content: turn.reply });
      const parsed = prompt.parseReply(turn.reply);
      note = parsed.ok ? undefined : parsed.message;
    }
    return out;
  }

  it('gives the ids of the whole conversation rendered by the chat template, up to the last end-of-turn id', () => {
    const { tokens, mask } = encodeEpisode(tokenizer, prompt, TURNS);
    const full = tokenizer.encodeChat(messages());
    expect(full.slice(0, tokens.length)).toEqual(tokens);
    // What the template writes after the last reply's end-of-turn token, and nothing of ours.
    expect(tokenizer.decode(full.slice(tokens.length))).toBe('\n');
    expect(mask).toHaveLength(tokens.length);
    // A format-error note reached the next user turn.
    expect(tokenizer.decode(tokens)).toContain((prompt.parseReply(TURNS[1]!.reply) as { message: string }).message);
  });

  it('masks exactly each reply and the end-of-turn id', () => {
    const { tokens, mask } = encodeEpisode(tokenizer, prompt, TURNS);
    const end = endOfTurnId(tokenizer);
    expect(tokenizer.decode([end])).toBe('<|im_end|>');
    const spans: number[][] = [];
    mask.forEach((bit, i) => {
      if (bit === 1 && mask[i - 1] !== 1) spans.push([]);
      if (bit === 1) spans.at(-1)!.push(tokens[i]!);
    });
    expect(spans.map((ids) => tokenizer.decode(ids))).toEqual(TURNS.map((t) => `${t.reply}<|im_end|>`));
  });

  it('turns a demonstration into replies in the env\'s format with an empty thought', () => {
    const turns = demoTurns({ turns: [{ observation: 'o', action: 'turn left', availableActions: ['turn left'] }] }, prompt);
    expect(turns).toEqual([{ observation: 'o', availableActions: ['turn left'], reply: 'Thought: \nAction: turn left' }]);
    expect(prompt.parseReply(turns[0]!.reply)).toEqual({ ok: true, action: 'turn left' });
  });
});
