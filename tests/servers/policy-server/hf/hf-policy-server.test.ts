/**
 * Issue 36 (item 7): a Hugging Face model behind the policy server's OpenAI-compatible endpoint,
 * on the tiny random Qwen2 chat model (tests/fixtures/hf/serve-tiny). Every reply is checked
 * against `generate` (policy/hf/generate.ts) on the ids of the model's own chat template.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../../../policy/backend.ts';
import { generate, type Generation } from '../../../../policy/hf/generate.ts';
import type { ChatMessage } from '../../../../policy/hf/tokenizer/index.ts';
import { loadServedHf, startHfPolicyServer, type HfServedModel, type LoadedServedHf } from '../../../../servers/policy-server/hf/index.ts';
import type { PolicyServer } from '../../../../servers/policy-server/policy-server.ts';

const FIXTURE = 'tests/fixtures/hf/serve-tiny';
let hf: LoadedServedHf;
let server: PolicyServer<HfServedModel>;
let client: OpenAI;

const chat = (content: string): ChatMessage[] => [{ role: 'system', content: 'You are a tiny model.' }, { role: 'user', content }];

async function post(body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

/** `generate` alone on the chat-templated ids of `messages`. */
async function alone(messages: ChatMessage[], options: { seed: number; temperature: number; maxNewTokens: number; topP?: number }): Promise<Generation & { prompt: number[] }> {
  const prompt = hf.tokenizer.encodeChat(messages, { addGenerationPrompt: true });
  const [out] = await generate(hf.model, [{ prompt, seed: options.seed }], {
    maxNewTokens: options.maxNewTokens, temperature: options.temperature, topP: options.topP ?? 1, stopIds: hf.tokenizer.stopIds,
  });
  return { ...out!, prompt };
}

beforeAll(async () => {
  await selectBackend('wasm');
  hf = await loadServedHf(FIXTURE);
  server = await startHfPolicyServer({ port: 0, model: hf.model, tokenizer: hf.tokenizer, modelId: hf.modelId, aliases: hf.aliases, randomSeed: () => 0 });
  client = new OpenAI({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await server.close();
  hf.dispose();
});

describe('a Hugging Face model on /v1/chat/completions (issue 36)', () => {
  it('lists the model as hf:<folder name>', async () => {
    expect(server.modelId).toBe('hf:serve-tiny');
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['hf:serve-tiny']);
  });

  it('a greedy reply is generate() on the chat template\'s ids: text, token ids, log-probs and usage', async () => {
    const messages = chat('go to the red ball');
    const expected = await alone(messages, { seed: 0, temperature: 0, maxNewTokens: 12 });
    const { status, json } = await post({ model: 'hf:serve-tiny', messages, temperature: 0, max_tokens: 12, logprobs: true, top_logprobs: 0, return_token_ids: true });
    expect(status).toBe(200);
    const choice = json.choices[0];
    expect(json.prompt_token_ids).toEqual(expected.prompt);
    expect(hf.tokenizer.decode(expected.prompt)).toBe(hf.tokenizer.applyChatTemplate(messages, { addGenerationPrompt: true }));
    expect(choice.token_ids).toEqual(expected.tokens);
    expect(choice.message.content).toBe(hf.tokenizer.decode(expected.tokens, { skipSpecialTokens: true }));
    expect(choice.finish_reason).toBe(expected.finish);
    expect(choice.logprobs.content.map((c: { logprob: number }) => c.logprob)).toEqual(expected.logProbs);
    expect(choice.logprobs.content.map((c: { token: string }) => c.token)).toEqual(expected.tokens.map((id) => hf.tokenizer.decode([id])));
    expect(json.usage).toEqual({ prompt_tokens: expected.prompt.length, completion_tokens: 12, total_tokens: expected.prompt.length + 12 });
  });

  it('the same seed gives the same sampled reply, another seed another; the reply is generate() with that seed', async () => {
    const ask = (seed: number) => post({ model: 'serve-tiny', messages: chat('pick up the key'), seed, temperature: 1, top_p: 0.9, max_tokens: 16, return_token_ids: true });
    const [a, b, c] = [await ask(7), await ask(7), await ask(8)];
    expect(a.json.choices[0].message.content).toBe(b.json.choices[0].message.content);
    expect(a.json.choices[0].token_ids).not.toEqual(c.json.choices[0].token_ids);
    expect(a.json.choices[0].token_ids).toEqual((await alone(chat('pick up the key'), { seed: 7, temperature: 1, topP: 0.9, maxNewTokens: 16 })).tokens);
  });

  it('concurrent requests are decoded in one batch, each as it would be alone', async () => {
    const questions = ['open the door', 'go to the green box', 'put the ball next to the key', 'turn left'];
    const before = server.served.stats;
    // Submits in one tick share a batch. Over HTTP the client here shares the server's event loop,
    // so its requests reach the server one by one; the CLI test (tests/cli/serve-policy-hf.test.ts)
    // sends them from another process and sees them batched there.
    const jobs = questions.map((q, i) => server.served.prepare({ model: 'x', messages: chat(q), seed: i, temperature: 1, maxTokens: 6 + i, stop: [], stream: false, includeUsage: false, logprobs: false, returnTokenIds: false, tokensAsTokenIds: false }));
    const together = await Promise.all(jobs.map((job) => server.served.generate(job)));
    expect(server.served.stats.recentSizes.slice(before.recentSizes.length)).toEqual([4]);
    const seen = server.served.stats.recentSizes.length;
    const overHttp = await Promise.all([
      post({ model: 'hf:serve-tiny', messages: chat('a long one first'), temperature: 0, max_tokens: 200 }),
      ...questions.map((q, i) => post({ model: 'hf:serve-tiny', messages: chat(q), seed: i, temperature: 1, max_tokens: 6 + i, return_token_ids: true, logprobs: true })),
    ]);
    expect(server.served.stats.recentSizes.slice(seen).reduce((a, b) => a + b, 0)).toBe(5);
    for (const [i, q] of questions.entries()) {
      const expected = await alone(chat(q), { seed: i, temperature: 1, maxNewTokens: 6 + i });
      expect(together[i]!.tokens).toEqual(expected.tokens);
      const choice = overHttp[i + 1]!.json.choices[0];
      expect(choice.token_ids).toEqual(expected.tokens);
      const diffs = choice.logprobs.content.map((c: { logprob: number }, k: number) => Math.abs(c.logprob - expected.logProbs[k]!));
      expect(Math.max(...diffs)).toBeLessThanOrEqual(1e-5);
    }
  }, 30_000);

  it('stop strings end the reply before them, with its tokens cut to the ones that spell it', async () => {
    const messages = chat('go to the red ball');
    const whole = await alone(messages, { seed: 0, temperature: 0, maxNewTokens: 12 });
    const text = hf.tokenizer.decode(whole.tokens, { skipSpecialTokens: true });
    const stop = text.slice(5, 8);
    const { json } = await post({ model: 'hf:serve-tiny', messages, temperature: 0, max_tokens: 12, stop: [stop], return_token_ids: true });
    const choice = json.choices[0];
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message.content).toBe(text.slice(0, text.indexOf(stop)));
    expect(whole.tokens.slice(0, choice.token_ids.length)).toEqual(choice.token_ids);
    expect(hf.tokenizer.decode(choice.token_ids.slice(0, -1))).not.toContain(stop);
    expect(json.usage.completion_tokens).toBe(choice.token_ids.length);
  });

  it('streams the reply through the openai client, with its log-probs and usage', async () => {
    const messages = chat('go to the red ball');
    const expected = await alone(messages, { seed: 3, temperature: 0, maxNewTokens: 10 });
    const stream = await client.chat.completions.create({ model: 'hf:serve-tiny', messages: messages as never, temperature: 0, max_tokens: 10, stream: true, stream_options: { include_usage: true }, logprobs: true });
    let text = '';
    const logProbs: number[] = [];
    let finish: string | null = null;
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      logProbs.push(...(chunk.choices[0]?.logprobs?.content ?? []).map((c) => c.logprob));
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(hf.tokenizer.decode(expected.tokens, { skipSpecialTokens: true }));
    expect(finish).toBe('length');
    expect(logProbs).toEqual(expected.logProbs);
    expect(usage?.completion_tokens).toBe(10);
  });

  it('bad requests are 400s that say what is wrong, and the server keeps serving', async () => {
    const bad = [
      [{ model: 'hf:serve-tiny', messages: [] }, /messages: at least one message is required/],
      [{ model: 'hf:serve-tiny', messages: chat('hi'), max_tokens: 5000 }, /the prompt is \d+ tokens and max_tokens 5000: \d+ is over the model's context of 4096 tokens/],
      [{ model: 'gpt-4o', messages: chat('hi') }, /model: no model "gpt-4o" here; this server serves "hf:serve-tiny"/],
      ['{"model": "hf:serve-tiny", "messages": [', /JSON/i],
      [{ model: 'hf:serve-tiny', messages: chat('hi'), top_logprobs: 3 }, /top_logprobs/],
    ] as const;
    for (const [body, message] of bad) {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json.error.message).toMatch(message);
    }
    await expect(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    const reply = await client.chat.completions.create({ model: 'hf:serve-tiny', messages: [{ role: 'user', content: 'still there?' }], max_tokens: 3, seed: 1 });
    expect(reply.choices[0]!.message.role).toBe('assistant');
    expect(reply.usage?.completion_tokens).toBe(3);
  });
});
