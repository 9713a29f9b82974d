/**
 * A reply that ends with another stop id than the one the chat template writes (the model emitted
 * <|endoftext|>, generation_config's second eos id, where ChatML writes <|im_end|>): the next turn
 * still appends what the template writes after a reply, with the sampled id standing in for the
 * template's end — found in a random model's BabyAI episode, which stopped at its third turn.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatEpisode } from '../../../../policy/hf/agent/index.ts';
import { loadHfTokenizer } from '../../../../policy/hf/tokenizer/index.ts';
import { babyai, FIXTURES, TURNS } from './support.ts';

describe('ChatEpisode with a reply ended by another stop id', () => {
  const tokenizer = loadHfTokenizer(path.join(FIXTURES, 'qwen2-tiny-chat'));
  const id = (token: string): number => tokenizer.tokenToId(token)!;

  it('appends the next user turn without a second end token', () => {
    expect(tokenizer.stopIds).toEqual(expect.arrayContaining([id('<|im_end|>'), id('<|endoftext|>')]));
    const chat = new ChatEpisode(tokenizer, babyai());
    chat.open(TURNS[0]!);
    const reply = [...tokenizer.encode(TURNS[0]!.reply, { addSpecialTokens: false }), id('<|endoftext|>')];
    expect(chat.reply(reply, true).text).toBe(TURNS[0]!.reply);
    const next = chat.next(TURNS[1]!);
    const text = tokenizer.decode(next);
    expect(text.startsWith('\n<|im_start|>user\n')).toBe(true);
    expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
    expect(next[0]).not.toBe(id('<|im_end|>'));
  });

  it('closes a reply cut by maxNewTokens with the template\'s end token', () => {
    const chat = new ChatEpisode(tokenizer, babyai());
    chat.open(TURNS[0]!);
    chat.reply(tokenizer.encode('Thought: the ball', { addSpecialTokens: false }), false);
    const next = chat.next(TURNS[1]!);
    expect(next[0]).toBe(id('<|im_end|>'));
  });
});
