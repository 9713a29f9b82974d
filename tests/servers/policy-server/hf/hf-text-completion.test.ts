/**
 * Issue 38: `POST /v1/completions` of a served Hugging Face model (tests/fixtures/hf/serve-tiny):
 * a prompt of token ids in, `generate()`'s ids and log-probs on exactly those ids out, and
 * `--agent openai:MODEL --tokenizer hf:DIR` against it token-exact end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../../../envs/index.ts';
import { selectBackend } from '../../../../policy/backend.ts';
import { generate } from '../../../../policy/hf/generate.ts';
import { createTokenLlmPolicy } from '../../../../policy/llm/create-token-llm-policy.ts';
import { loadServedHf, startHfPolicyServer, type HfServedModel, type LoadedServedHf } from '../../../../servers/policy-server/hf/index.ts';
import type { PolicyServer } from '../../../../servers/policy-server/policy-server.ts';

const FIXTURE = 'tests/fixtures/hf/serve-tiny';
let hf: LoadedServedHf;
let server: PolicyServer<HfServedModel>;

async function post(body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  await selectBackend('wasm');
  hf = await loadServedHf(FIXTURE);
  server = await startHfPolicyServer({ port: 0, model: hf.model, tokenizer: hf.tokenizer, modelId: hf.modelId, aliases: hf.aliases, randomSeed: () => 0 });
}, 60_000);

afterAll(async () => {
  await server.close();
  hf.dispose();
});

describe('/v1/completions on a served Hugging Face model (issue 38)', () => {
  it('a prompt of ids: the reply is generate() on exactly those ids, with token_ids, prompt_token_ids and log-probs', async () => {
    const prompt = hf.tokenizer.encodeChat([{ role: 'user', content: 'go to the red ball' }], { addGenerationPrompt: true });
    const [expected] = await generate(hf.model, [{ prompt, seed: 3 }], { maxNewTokens: 10, temperature: 1, topP: 1, stopIds: hf.tokenizer.stopIds });
    const { status, json } = await post({ model: 'serve-tiny', prompt, max_tokens: 10, temperature: 1, seed: 3, logprobs: 1, return_token_ids: true, return_tokens_as_token_ids: true });
    expect(status, JSON.stringify(json)).toBe(200);
    const choice = json.choices[0];
    expect(json.object).toBe('text_completion');
    expect(choice.prompt_token_ids).toEqual(prompt);
    expect(choice.token_ids).toEqual(expected!.tokens);
    expect(choice.logprobs.token_logprobs).toEqual(expected!.logProbs);
    expect(choice.logprobs.tokens).toEqual(expected!.tokens.map((id) => `token_id:${id}`));
    expect(choice.finish_reason).toBe(expected!.finish);
    expect(json.usage.prompt_tokens).toBe(prompt.length);
  });

  it('a text prompt is encoded by the tokenizer; without the vLLM fields no ids are returned and log-probs are named by text', async () => {
    const text = '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n';
    const asIds = await post({ model: 'hf:serve-tiny', prompt: hf.tokenizer.encode(text, { addSpecialTokens: true }), max_tokens: 4, temperature: 0, logprobs: 0 });
    const asText = await post({ model: 'hf:serve-tiny', prompt: text, max_tokens: 4, temperature: 0, logprobs: 0 });
    expect(asText.json.choices[0].text).toBe(asIds.json.choices[0].text);
    expect(asText.json.choices[0].token_ids).toBeUndefined();
    expect(asText.json.choices[0].logprobs.tokens.every((t: string) => !t.startsWith('token_id:'))).toBe(true);
  });

  it('bad input is a 400 naming the field: an id past the vocabulary, stream, two prompts, a wrong model', async () => {
    const vocab = hf.model.config.vocabSize;
    const cases: [unknown, string][] = [
      [{ model: 'serve-tiny', prompt: [1, vocab] }, 'prompt[1]'],
      [{ model: 'serve-tiny', prompt: [1, 2], stream: true }, 'stream'],
      [{ model: 'serve-tiny', prompt: [[1], [2]] }, 'prompt'],
      [{ model: 'other', prompt: [1, 2] }, 'model'],
    ];
    for (const [body, param] of cases) {
      const { status, json } = await post(body);
      expect(status).toBe(400);
      expect(json.error.message).toContain(param);
    }
  });

  it('openai:MODEL --tokenizer hf:DIR against it: each turn\'s prompt is the last one + the sampled ids + the template\'s, and the record is exact', async () => {
    const policy = createTokenLlmPolicy({ model: 'serve-tiny', env: getEnv('babyai'), baseURL: server.url, tokenizer: FIXTURE, maxTokens: 6, temperature: 1, retries: 0 });
    const decisions = [];
    for (const [turn, observation] of ['You see a red ball. Your mission: go to the red ball.', 'You turned.', 'You moved.'].entries()) {
      const [decision] = await policy.act([{ episodeId: 'e', turn, seed: 11, observation }]);
      decisions.push(decision!);
    }
    const record = policy.release('e')!;
    // Every reply's ids are the model's sampled ids on the record's prefix: re-generate each turn alone.
    let at = 0;
    for (const decision of decisions) {
      const start = findNext(record.mask, at);
      expect(decision.usage!.promptTokens).toBe(start);
      const prompt = record.tokens.slice(0, start);
      const [alone] = await generate(hf.model, [{ prompt, seed: 11 }], { maxNewTokens: 6, temperature: 1, topP: 1, stopIds: hf.tokenizer.stopIds });
      expect(decision.tokenIds).toEqual(alone!.tokens);
      expect(decision.logProbs).toEqual(alone!.logProbs);
      expect(record.tokens.slice(start, start + alone!.tokens.length)).toEqual(alone!.tokens);
      at = start + alone!.tokens.length;
    }
    expect(record.mask.reduce((a, b) => a + b, 0)).toBe(decisions.reduce((n, d) => n + d.tokenIds!.length, 0));
  }, 60_000);
});

/** The index of the next mask-1 id at or after `from`. */
function findNext(mask: readonly number[], from: number): number {
  for (let i = from; i < mask.length; i++) if (mask[i] === 1) return i;
  return mask.length;
}
