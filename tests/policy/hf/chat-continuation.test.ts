/**
 * Issue 36: a multi-turn episode appends each new turn's ids to the tokens it holds instead of
 * encoding the conversation again — and the ids so appended are the ids of the whole
 * conversation, for the env episodes of the chat fixtures under each template; where a template
 * rewrites earlier turns (Qwen3 without thinking) or the cut could merge text, there is no
 * continuation and the caller re-encodes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chatContinuation } from '../../../policy/hf/tokenizer/chat-continuation.ts';
import { type ChatMessage, type HfTokenizer, loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { TOKENIZER_DIRS, chatFixture, removeTokenizerFolders, tokenizerFolder } from './tokenizer-fixtures.ts';

afterAll(removeTokenizerFolders);
const fixture = chatFixture();
const FAMILIES = ['babyai', 'textcraft', 'sciworld', 'search', 'web'];
/** The token each template's model ends its turn with. */
const END = { qwen3: '<|im_end|>', llama3: '<|eot_id|>' } as const;

function tokenizerFor(template: string): HfTokenizer {
  const entry = fixture.templates[template];
  if (entry === undefined) throw new Error(`no template ${template}`);
  return entry.source.startsWith('package:')
    ? loadHfTokenizer(TOKENIZER_DIRS[entry.tokenizer])
    : loadHfTokenizer(tokenizerFolder(entry.tokenizer, { 'chat_template.jinja': entry.text }));
}

/**
 * Plays an env conversation turn by turn as a policy would: it holds the prompt it rendered plus
 * the reply it "generated" and its end token, then the next observation arrives.
 */
function playEpisode(tok: HfTokenizer, end: string, messages: readonly ChatMessage[], extra: Record<string, unknown> = {}) {
  const steps: { appended: number[] | undefined; whole: number[]; held: number[] }[] = [];
  for (let k = 0; k + 2 < messages.length; k++) {
    const turn = messages[k + 1];
    if (messages[k]?.role !== 'user' || turn?.role !== 'assistant') continue;
    const prompt = tok.applyChatTemplate(messages.slice(0, k + 1), { addGenerationPrompt: true, extra });
    const held = prompt + (turn.content ?? '') + end;
    const next = messages.slice(0, k + 3);
    const continued = tok.continueChat(held, next, { addGenerationPrompt: true, extra });
    steps.push({
      appended: continued?.ids,
      whole: tok.encodeChat(next, { addGenerationPrompt: true, extra }),
      held: tok.encode(held, { addSpecialTokens: false }),
    });
  }
  return steps;
}

describe.each(['qwen2.5-style', 'qwen3', 'llama3', 'llama3.1-style'])('%s: appending turns gives the ids of the whole conversation', (template) => {
  const tok = tokenizerFor(template);
  const end = END[fixture.templates[template]?.tokenizer ?? 'qwen3'];

  it.each(FAMILIES)('%s episode', (family) => {
    const conversation = fixture.conversations[`env-${family}`];
    if (conversation === undefined) throw new Error(`no env-${family} conversation`);
    const steps = playEpisode(tok, end, conversation.messages);
    expect(steps.length).toBeGreaterThanOrEqual(1);
    for (const step of steps) {
      expect(step.appended).toBeDefined();
      expect([...step.held, ...(step.appended ?? [])]).toEqual(step.whole);
    }
  });
});

it("Qwen3 without thinking rewrites the assistant's earlier turn, so there is no continuation (issue 36)", () => {
  const tok = tokenizerFor('qwen3');
  const conversation = fixture.conversations['env-babyai'];
  if (conversation === undefined) throw new Error('no env-babyai conversation');
  const steps = playEpisode(tok, END.qwen3, conversation.messages, { enable_thinking: false });
  expect(steps.length).toBeGreaterThanOrEqual(1);
  expect(steps.every((s) => s.appended === undefined)).toBe(true);
});

describe('chatContinuation (issue 36)', () => {
  const added = [{ content: '<|im_end|>' }, { content: '<|im_start|>' }, { content: '<s>', rstrip: true }];

  it('cuts next to an added token', () => {
    expect(chatContinuation('a<|im_end|>', 'a<|im_end|>\n<|im_start|>user\nb', added)).toBe('\n<|im_start|>user\nb');
    expect(chatContinuation('a\n', 'a\n<|im_start|>b', added)).toBe('<|im_start|>b');
  });

  it('refuses a render that does not extend the held text', () => {
    expect(chatContinuation('a<|im_end|>', 'b<|im_end|>c', added)).toBeUndefined();
  });

  it('refuses a cut inside text, where pieces could merge into one token', () => {
    expect(chatContinuation('go for', 'go forward', added)).toBeUndefined();
  });

  it('does not count added tokens that strip their neighbouring spaces', () => {
    expect(chatContinuation('a<s>', 'a<s> b', added)).toBeUndefined();
  });
});
