/**
 * Issue 36 (item 4, multi-turn with templates that rewrite the past): Qwen3's template drops a
 * past reply's <think> block once a new user turn follows, so no render extends what the policy
 * holds. The episode then appends what the template writes after a reply (its end token unless
 * the model emitted it, the user turn, the generation prompt); a template that writes no reply
 * at all is refused clearly.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatEpisode } from '../../../../policy/hf/agent/index.ts';
import { loadHfTokenizer, type HfTokenizer } from '../../../../policy/hf/tokenizer/index.ts';
import { babyai, FIXTURES, TURNS } from './support.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'chat-episode-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The tiny tokenizer with `template` as its chat template. */
function withTemplate(name: string, template: string): HfTokenizer {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  copyFileSync(path.join(FIXTURES, 'tokenizer/tiny/tokenizer.json'), path.join(dir, 'tokenizer.json'));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ eos_token: '<|im_end|>', pad_token: '<|endoftext|>' }));
  writeFileSync(path.join(dir, 'chat_template.jinja'), template);
  return loadHfTokenizer(dir);
}

const THINK_DROPPING =
  "{%- for message in messages %}{%- set content = message['content'] %}" +
  "{%- if message['role'] == 'assistant' and '</think>' in content %}{%- set content = content.split('</think>')[1] %}{%- endif %}" +
  "{{- '<|im_start|>' + message['role'] + '\\n' + content + '<|im_end|>\\n' }}{%- endfor %}" +
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

describe('ChatEpisode with a template that rewrites past replies', () => {
  const tokenizer = withTemplate('think', THINK_DROPPING);
  const prompt = babyai();
  const reply = '<think>the ball is ahead</think>Thought: go\nAction: move forward';
  const userTurn = prompt.nextTurn(TURNS[1]!.observation, TURNS[1]!.availableActions);

  it('appends the template\'s turn boundary after a reply that ended with its stop token', () => {
    const chat = new ChatEpisode(tokenizer, prompt);
    const opening = chat.open(TURNS[0]!);
    const ids = [...tokenizer.encode(reply, { addSpecialTokens: false }), 2];
    expect(chat.reply(ids, true).action).toBe('move forward');
    const held = tokenizer.decode([...opening, ...ids]);
    const messages = [{ role: 'user', content: prompt.firstTurn(TURNS[0]!.observation) }, { role: 'assistant', content: reply }, { role: 'user', content: userTurn }];
    expect(tokenizer.continueChat(held, messages, { addGenerationPrompt: true })).toBeUndefined();
    const next = chat.next(TURNS[1]!);
    expect(tokenizer.decode(next)).toBe(`\n<|im_start|>user\n${userTurn}<|im_end|>\n<|im_start|>assistant\n`);
  });

  it('closes a reply cut by maxNewTokens with the template\'s end token', () => {
    const chat = new ChatEpisode(tokenizer, prompt);
    chat.open(TURNS[0]!);
    expect(chat.reply(tokenizer.encode('<think>a</think>Action: turn left', { addSpecialTokens: false }), false).formatError).toBeUndefined();
    expect(tokenizer.decode(chat.next(TURNS[1]!))).toBe(`<|im_end|>\n<|im_start|>user\n${userTurn}<|im_end|>\n<|im_start|>assistant\n`);
  });

  it('refuses a template that does not write the reply at all', () => {
    const dropping = withTemplate('drop', "{%- for message in messages %}{%- if message['role'] != 'assistant' %}{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}");
    const chat = new ChatEpisode(dropping, prompt);
    chat.open(TURNS[0]!);
    chat.reply([...dropping.encode('x', { addSpecialTokens: false }), 2], true);
    expect(() => chat.next(TURNS[1]!)).toThrow(/HF_POLICY_TEMPLATE: the chat template of .*drop neither extends the conversation held so far/);
  });
});
