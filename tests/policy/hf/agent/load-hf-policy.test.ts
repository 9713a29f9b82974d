/**
 * Issue 36 (item 7, `--agent hf:DIR [--adapter DIR]`): loadHfPolicy loads a model folder and an
 * optional peft adapter as an HfPolicy for an env, names it, frees it all on dispose, and refuses
 * a folder that is not a model (naming the missing file) and a tokenizer whose ids do not fit the
 * model (naming both files).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../../../envs/registry.ts';
import '../../../../envs/builtin.ts';
import { selectBackend } from '../../../../policy/backend.ts';
import type { HfCausalLm } from '../../../../policy/hf/causal-lm.ts';
import { loadHfPolicy } from '../../../../policy/hf/agent/index.ts';
import { chatDir, FIXTURES } from './support.ts';

const env = getEnv('babyai');
const ADAPTER = path.join(FIXTURES, 'lora/qwen2-tiny-r4');

function forwardLogits(model: HfCausalLm): Float32Array {
  const tokens = Int32Array.from([1, 5, 9, 40]);
  const out = model.forward({ tokens, batch: 1, length: 4, positions: Int32Array.from([0, 1, 2, 3]), keyMask: Uint8Array.from([1, 1, 1, 1]) });
  const data = out.logits.dataSync() as Float32Array;
  tf.dispose([out.logits, ...out.kv.flatMap((l) => [l.k, l.v])]);
  return data;
}

describe('loadHfPolicy', () => {
  let tmp: string;
  beforeAll(async () => {
    await selectBackend('wasm');
    tmp = mkdtempSync(path.join(os.tmpdir(), 'hf-policy-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('loads a model folder as a named policy for the env, and dispose frees every tensor', async () => {
    const before = tf.memory().numTensors;
    const loaded = await loadHfPolicy({ dir: chatDir('qwen2-tiny-chat') }, { env, backend: 'wasm', maxNewTokens: 8, temperature: 0.7 });
    expect(loaded.policy.name).toBe('hf:qwen2-tiny-chat');
    expect(loaded.backend).toBe('wasm');
    expect(loaded.describe).toMatch(/^hf:qwen2-tiny-chat: qwen2, 0\.\d+M parameters, vocabulary 384, context 8192 tokens, on wasm$/);
    const [decision] = await loaded.policy.act([{ episodeId: 'e', turn: 0, seed: 1, observation: 'Your goal: go to the red ball\nYou see a wall.' }]);
    expect(decision!.tokenIds!.length).toBeGreaterThan(0);
    expect(decision!.tokenIds!.length).toBeLessThanOrEqual(8);
    loaded.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('attaches a peft adapter: its name says so and its logits are not the base model\'s', async () => {
    const before = tf.memory().numTensors;
    const base = await loadHfPolicy({ dir: chatDir('qwen2-tiny-chat') }, { env, backend: 'wasm' });
    const adapted = await loadHfPolicy({ dir: chatDir('qwen2-tiny-chat'), adapter: ADAPTER }, { env, backend: 'wasm' });
    expect(adapted.policy.name).toBe('hf:qwen2-tiny-chat+qwen2-tiny-r4');
    expect(adapted.describe).toContain('+ LoRA r4');
    const a = forwardLogits(base.policy.model);
    const b = forwardLogits(adapted.policy.model);
    expect(Math.max(...a.map((x, i) => Math.abs(x - b[i]!)))).toBeGreaterThan(1e-3);
    base.dispose();
    adapted.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses a folder that is not a model, naming the missing files', async () => {
    await expect(loadHfPolicy({ dir: path.join(tmp, 'nowhere') }, { env })).rejects.toThrow(/HF_POLICY_NOT_A_MODEL: .*nowhere is not a directory/);
    const dir = path.join(tmp, 'config-only');
    mkdirSync(dir);
    copyFileSync(path.join(chatDir('qwen2-tiny-chat'), 'config.json'), path.join(dir, 'config.json'));
    const error = (await loadHfPolicy({ dir }, { env }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`${path.join(dir, 'tokenizer.json')}, ${path.join(dir, 'model.safetensors')} (or model.safetensors.index.json) missing`);
  });

  it('refuses a tokenizer whose ids do not fit the model, naming tokenizer.json and config.json', async () => {
    const dir = path.join(tmp, 'mismatch');
    mkdirSync(dir);
    // The 256-id tiny model with the 384-token tiny tokenizer.
    for (const file of ['config.json', 'model.safetensors']) copyFileSync(path.join(FIXTURES, 'qwen2-tiny', file), path.join(dir, file));
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(path.join(FIXTURES, 'tokenizer/tiny', file), path.join(dir, file));
    const before = tf.memory().numTensors;
    const error = (await loadHfPolicy({ dir }, { env, backend: 'wasm' }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^HF_TOKENIZER_VOCAB_MISMATCH: .*mismatch\/tokenizer\.json has token ids up to 383 \(384 tokens\) but .*mismatch\/config\.json's vocab_size is 256/);
    expect(tf.memory().numTensors).toBe(before);
  });
});
