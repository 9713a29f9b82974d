/**
 * Issue 36: chat templates render exactly what transformers' `apply_chat_template` renders, and
 * encode to its ids — Qwen3's and Llama 3's templates as their tokenizer_config.json ships them,
 * and Qwen2.5- and Llama-3.1-style templates (written in those formats) read from
 * chat_template.jinja. Conversations: with and without a system message, multi-turn, ending on
 * the assistant, unicode, env episodes of the five families, tools and tool calls, Qwen3 thinking;
 * each with add_generation_prompt true and false (fixtures: scripts/hf/make-tokenizer-fixtures.py).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage as LlmChatMessage } from '../../../policy/llm/chat-types.ts';
import { type HfTokenizer, loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { TOKENIZER_DIRS, chatFixture, matchesRecord, removeTokenizerFolders, tokenizerFolder } from './tokenizer-fixtures.ts';

const fixture = chatFixture();

function tokenizerFor(template: string): HfTokenizer {
  const entry = fixture.templates[template];
  if (entry === undefined) throw new Error(`no template ${template} in the fixture`);
  // The packages' own templates come from tokenizer_config.json; the others from chat_template.jinja.
  const dir = entry.source.startsWith('package:')
    ? TOKENIZER_DIRS[entry.tokenizer]
    : tokenizerFolder(entry.tokenizer, { 'chat_template.jinja': entry.text });
  return loadHfTokenizer(dir);
}

describe('chat template parity with transformers apply_chat_template', () => {
  afterAll(removeTokenizerFolders);

  it('covers Qwen2.5-, Qwen3- and Llama-3-style templates, with and without a generation prompt', () => {
    expect(Object.keys(fixture.templates).sort()).toEqual(['llama3', 'llama3.1-style', 'qwen2.5-style', 'qwen3']);
    for (const template of Object.keys(fixture.templates)) {
      for (const gen of [true, false]) {
        expect(fixture.renders.some((r) => r.template === template && r.addGenerationPrompt === gen)).toBe(true);
      }
    }
  });

  it('passes the template the special tokens transformers passes', () => {
    for (const name of ['qwen3', 'llama3'] as const) {
      expect(loadHfTokenizer(TOKENIZER_DIRS[name]).specialTokens).toEqual(fixture.specialTokens[name]);
    }
  });

  it("renders the LLM policy's chat messages as they are", () => {
    const messages: LlmChatMessage[] = [
      { role: 'system', content: 'You are a careful agent. Reply with one action.' },
      { role: 'user', content: 'You see a red ball. What do you do?' },
    ];
    const render = fixture.renders.find((r) => r.template === 'qwen3' && r.conversation === 'system-user' && r.addGenerationPrompt);
    expect(loadHfTokenizer(TOKENIZER_DIRS.qwen3).applyChatTemplate(messages, { addGenerationPrompt: true })).toBe(render?.text);
  });

  describe.each(Object.keys(fixture.templates))('%s', (template) => {
    const tok = tokenizerFor(template);
    const renders = fixture.renders.filter((r) => r.template === template);
    const label = (r: (typeof renders)[number]): string =>
      `${r.conversation} gen=${r.addGenerationPrompt} ${JSON.stringify(r.extra)}`;

    it.each(renders.map((r) => [label(r), r] as const))('%s', (_, render) => {
      const conversation = fixture.conversations[render.conversation];
      if (conversation === undefined) throw new Error(`no conversation ${render.conversation}`);
      const options = {
        addGenerationPrompt: render.addGenerationPrompt,
        extra: render.extra,
        ...(conversation.tools === undefined ? {} : { tools: conversation.tools }),
      };
      expect(tok.applyChatTemplate(conversation.messages, options)).toBe(render.text);
      const ids = tok.encodeChat(conversation.messages, options);
      expect(matchesRecord(ids, render), `ids of ${label(render)}`).toBe(true);
    });
  });
});
