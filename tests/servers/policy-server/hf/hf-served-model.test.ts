/**
 * Issue 36 (item 7): the served Hugging Face model without HTTP — mixed sampling settings in one
 * batch, stop ids read from generation_config.json, a peft adapter applied, the queue's bound.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../../../policy/backend.ts';
import { generate } from '../../../../policy/hf/generate.ts';
import { attachLora, exportPeftAdapter, initLoraAdapters, loraConfig } from '../../../../policy/hf/lora/index.ts';
import { HfServedModel, loadServedHf, parseHfChatBody, type LoadedServedHf } from '../../../../servers/policy-server/hf/index.ts';
import { ApiError } from '../../../../servers/policy-server/api-error.ts';

const FIXTURE = 'tests/fixtures/hf/serve-tiny';
let hf: LoadedServedHf;
let tmp: string;

const request = (content: string, fields: Record<string, unknown> = {}) =>
  parseHfChatBody({ model: 'hf:serve-tiny', messages: [{ role: 'user', content }], ...fields });

beforeAll(async () => {
  await selectBackend('wasm');
  hf = await loadServedHf(FIXTURE);
  tmp = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-serve-'));
}, 60_000);

afterAll(() => {
  hf.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

describe('HfServedModel (issue 36)', () => {
  it('one batch with greedy and sampled requests makes one generate call per sampling setting, each reply as alone', async () => {
    const served = new HfServedModel({ model: hf.model, tokenizer: hf.tokenizer, modelId: 'hf:serve-tiny' });
    const asks = [request('a', { temperature: 0, max_tokens: 5 }), request('bb', { temperature: 0.7, seed: 1, max_tokens: 7 }), request('ccc', { temperature: 0, max_tokens: 9 })];
    const jobs = asks.map((r) => served.prepare(r));
    const replies = await Promise.all(jobs.map((job) => served.generate(job)));
    expect(served.stats.recentSizes).toEqual([3]);
    expect([...served.stats.generateCalls].sort()).toEqual([1, 2]);
    for (const [i, job] of jobs.entries()) {
      const [alone] = await generate(hf.model, [{ prompt: job.promptIds, seed: job.seed }], { maxNewTokens: job.maxNewTokens, temperature: job.temperature, topP: 1, stopIds: hf.tokenizer.stopIds });
      expect(replies[i]!.tokens).toEqual(alone!.tokens);
    }
    served.close();
  });

  it('stops at an eos id of generation_config.json, leaving it out of the text', async () => {
    const base = new HfServedModel({ model: hf.model, tokenizer: hf.tokenizer, modelId: 'x' });
    const greedy = await base.generate(base.prepare(request('go to the red ball', { temperature: 0, max_tokens: 12 })));
    const eos = greedy.tokens[4]!;
    const dir = path.join(tmp, 'eos');
    cpSync(FIXTURE, dir, { recursive: true });
    writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [eos] }));
    const withEos = await loadServedHf(dir);
    try {
      const served = new HfServedModel({ model: withEos.model, tokenizer: withEos.tokenizer, modelId: 'x' });
      const reply = await served.generate(served.prepare(request('go to the red ball', { temperature: 0, max_tokens: 12 })));
      const first = greedy.tokens.indexOf(eos);
      expect(reply.finish).toBe('stop');
      expect(reply.tokens).toEqual(greedy.tokens.slice(0, first + 1));
      expect(reply.text).toBe(hf.tokenizer.decode(greedy.tokens.slice(0, first), { skipSpecialTokens: true }));
    } finally {
      withEos.dispose();
    }
  });

  it('serves a peft adapter: replies are the adapted model\'s, not the base\'s', async () => {
    const adapters = initLoraAdapters(hf.model.config, loraConfig({ r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'down_proj'] }), 3);
    // peft starts B at zero (no change); give it values so the adapter shows.
    for (const v of adapters.variables) v.assign(tf.randomNormal(v.shape, 0, 0.5, 'float32', 11));
    const adapterDir = path.join(tmp, 'adapter');
    await exportPeftAdapter(adapters, adapterDir, { baseModelNameOrPath: FIXTURE });
    const expected = attachLora(hf.model, adapters).withAdapters;
    const withAdapter = await loadServedHf(FIXTURE, { adapter: adapterDir });
    try {
      expect(withAdapter.modelId).toBe('hf:serve-tiny+adapter');
      const served = new HfServedModel({ model: withAdapter.model, tokenizer: withAdapter.tokenizer, modelId: withAdapter.modelId });
      const job = served.prepare(request('go to the red ball', { temperature: 0, max_tokens: 10 }));
      const reply = await served.generate(job);
      const options = { maxNewTokens: 10, temperature: 0, topP: 1, stopIds: hf.tokenizer.stopIds };
      const [adapted] = await generate(expected, [{ prompt: job.promptIds, seed: 0 }], options);
      const [base] = await generate(hf.model, [{ prompt: job.promptIds, seed: 0 }], options);
      expect(reply.tokens).toEqual(adapted!.tokens);
      expect(reply.tokens).not.toEqual(base!.tokens);
    } finally {
      withAdapter.dispose();
      adapters.dispose();
    }
  });

  it('refuses past maxQueue with 503 server_busy, and everything once closed', async () => {
    const served = new HfServedModel({ model: hf.model, tokenizer: hf.tokenizer, modelId: 'x', maxBatch: 1, maxQueue: 2 });
    const job = served.prepare(request('hi', { max_tokens: 2, seed: 1 }));
    const accepted = [served.generate(job), served.generate(job)];
    await expect(served.generate(job)).rejects.toMatchObject({ status: 503, code: 'server_busy' });
    await Promise.all(accepted);
    expect(served.stats.recentSizes).toEqual([1, 1]);
    served.close();
    await expect(served.generate(job)).rejects.toBeInstanceOf(ApiError);
  });

  it('lowers max_tokens to the cap, and a request without one to the default', () => {
    const served = new HfServedModel({ model: hf.model, tokenizer: hf.tokenizer, modelId: 'x', defaultMaxTokens: 5, maxTokensCap: 8 });
    expect(served.prepare(request('hi', { max_tokens: 100 })).maxNewTokens).toBe(8);
    expect(served.prepare(request('hi')).maxNewTokens).toBe(5);
    expect(() => served.prepare(request('x'.repeat(5000)))).toThrow(/leaves no room in the model's context of 4096 tokens|over the model's context/);
  });
});
