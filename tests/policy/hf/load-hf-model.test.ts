/**
 * Issue 36: loading model folders — sharded and BF16 folders give the same model as a single
 * F32 file of the same values; a wrong, missing or extra tensor, a broken index and a model too
 * large for the backend are refused with errors that name the file and the tensor or field.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { HfModelError } from '../../../policy/hf/hf-error.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { WeightFiles } from '../../../policy/hf/safetensors/weight-files.ts';
import { encodeSafetensors, writeSafetensors, type Float32Tensor } from '../../../policy/hf/safetensors/write-safetensors.ts';
import { maxAbsDiff, modelDir } from './fixtures.ts';

/** Every tensor of a fixture folder, as float32. */
async function readAll(dir: string): Promise<Float32Tensor[]> {
  const files = await WeightFiles.open(dir);
  const out: Float32Tensor[] = [];
  for (const name of files.names.sort()) out.push({ name, shape: files.locate(name).entry.shape, data: await files.readFloat32(name) });
  await files.close();
  return out;
}

/** A folder with `src`'s config.json and `tensors` as one model.safetensors. */
async function folderWith(root: string, name: string, src: string, tensors: readonly Float32Tensor[]): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  await copyFile(path.join(src, 'config.json'), path.join(dir, 'config.json'));
  await writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  return dir;
}

async function logitsOf(dir: string, ids: number[]): Promise<Float32Array> {
  const { model } = await loadHfModel(dir);
  const logits = tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);
  model.dispose();
  return logits;
}

async function loadError(dir: string): Promise<HfModelError> {
  const e = await loadHfModel(dir).then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(HfModelError);
  return e as HfModelError;
}

const IDS = [5, 77, 130, 9, 250, 31];

describe('loading HF model folders (wasm)', () => {
  let root: string;
  beforeAll(async () => {
    await selectBackend('wasm');
    root = await mkdtemp(path.join(os.tmpdir(), 'hf-load-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a sharded folder equals the same tensors in one file', async () => {
    const sharded = modelDir('llama3-tiny');
    const index = JSON.parse(await readFile(path.join(sharded, 'model.safetensors.index.json'), 'utf8')) as { weight_map: Record<string, string> };
    expect(new Set(Object.values(index.weight_map)).size).toBe(2);
    const single = await folderWith(root, 'llama-single', sharded, await readAll(sharded));
    expect(maxAbsDiff(await logitsOf(sharded, IDS), await logitsOf(single, IDS))).toBe(0);
  });

  it('a BF16 folder equals its values written as F32 (the conversion is exact)', async () => {
    const bf16 = modelDir('qwen3-tiny');
    const files = await WeightFiles.open(bf16);
    expect(files.locate('model.norm.weight').entry.dtype).toBe('BF16');
    await files.close();
    const f32 = await folderWith(root, 'qwen3-f32', bf16, await readAll(bf16));
    expect(maxAbsDiff(await logitsOf(bf16, IDS), await logitsOf(f32, IDS))).toBe(0);
  });

  it('an F16 copy of a model loads within half precision of the F32 model', async () => {
    const f32 = await readAll(modelDir('qwen2-tiny'));
    const f16 = await folderWith(root, 'qwen2-f16', modelDir('qwen2-tiny'), f32.map((t) => ({ ...t, dtype: 'F16' as const })));
    const files = await WeightFiles.open(f16);
    for (const t of f32) {
      expect(files.locate(t.name).entry.dtype).toBe('F16');
      const back = await files.readFloat32(t.name);
      for (let i = 0; i < back.length; i++) expect(Math.abs(back[i]! - t.data[i]!)).toBeLessThanOrEqual(2 ** -11 * Math.abs(t.data[i]!) + 2 ** -25);
    }
    await files.close();
    const diff = maxAbsDiff(await logitsOf(f16, IDS), await logitsOf(modelDir('qwen2-tiny'), IDS));
    console.log(`qwen2-tiny F16 copy: max |dlogit| = ${diff.toExponential(2)}`);
    expect(diff).toBeGreaterThan(0);
    expect(diff).toBeLessThanOrEqual(1e-2);
  });

  it('leaves no tensor behind after load and dispose, or after a load refused halfway', async () => {
    const before = tf.memory().numTensors;
    const { model } = await loadHfModel(modelDir('qwen2-tiny'));
    expect(tf.memory().numTensors).toBeGreaterThan(before);
    model.dispose();
    expect(tf.memory().numTensors).toBe(before);
    // The last tensor read is stored as I32: refused after the others were on the backend.
    const dir = path.join(root, 'int-norm');
    await mkdir(dir, { recursive: true });
    await copyFile(path.join(modelDir('qwen2-tiny'), 'config.json'), path.join(dir, 'config.json'));
    const bytes = encodeSafetensors(await readAll(modelDir('qwen2-tiny')));
    const text = Buffer.from(bytes).toString('latin1');
    const at = text.indexOf('"model.norm.weight":{"dtype":"F32"');
    expect(at).toBeGreaterThan(0);
    bytes.set(Buffer.from('I32', 'latin1'), at + '"model.norm.weight":{"dtype":"'.length);
    await writeFile(path.join(dir, 'model.safetensors'), bytes);
    const e = await loadError(dir);
    expect(e.code).toBe('HF_SAFETENSORS_DTYPE');
    expect(e.field).toBe('model.norm.weight');
    expect(tf.memory().numTensors).toBe(before);
  });

  describe('refusals', () => {
    let tensors: Float32Tensor[];
    beforeAll(async () => {
      tensors = await readAll(modelDir('qwen2-tiny'));
    });

    it('a tensor whose shape does not fit config.json', async () => {
      const bad = tensors.map((t) => (t.name === 'model.layers.1.mlp.up_proj.weight' ? { ...t, shape: [32, 64] } : t));
      const dir = await folderWith(root, 'wrong-shape', modelDir('qwen2-tiny'), bad);
      const e = await loadError(dir);
      expect(e.code).toBe('HF_TENSOR_SHAPE');
      expect(e.file).toBe(path.join(dir, 'model.safetensors'));
      expect(e.field).toBe('model.layers.1.mlp.up_proj.weight');
      expect(e.message).toContain('expected [64, 32]');
    });

    it('a missing tensor (a Qwen2 checkpoint without its q bias)', async () => {
      const dir = await folderWith(root, 'missing', modelDir('qwen2-tiny'), tensors.filter((t) => t.name !== 'model.layers.0.self_attn.q_proj.bias'));
      const e = await loadError(dir);
      expect(e.code).toBe('HF_TENSOR_MISSING');
      expect(e.file).toBe(path.join(dir, 'model.safetensors'));
      expect(e.field).toBe('model.layers.0.self_attn.q_proj.bias');
    });

    it('a tensor the architecture does not have (an o_proj bias)', async () => {
      const extra = [...tensors, { name: 'model.layers.0.self_attn.o_proj.bias', shape: [32], data: new Float32Array(32) }];
      const dir = await folderWith(root, 'extra', modelDir('qwen2-tiny'), extra);
      const e = await loadError(dir);
      expect(e.code).toBe('HF_TENSOR_UNEXPECTED');
      expect(e.field).toBe('model.layers.0.self_attn.o_proj.bias');
    });

    it('an index that maps a tensor to a shard without it', async () => {
      const dir = path.join(root, 'bad-index');
      await mkdir(dir, { recursive: true });
      const src = modelDir('llama3-tiny');
      const index = JSON.parse(await readFile(path.join(src, 'model.safetensors.index.json'), 'utf8')) as { weight_map: Record<string, string> };
      for (const f of ['config.json', ...new Set(Object.values(index.weight_map))]) await copyFile(path.join(src, f), path.join(dir, f));
      const moved = Object.keys(index.weight_map).find((n) => index.weight_map[n] === 'model-00002-of-00002.safetensors')!;
      index.weight_map[moved] = 'model-00001-of-00002.safetensors';
      await writeFile(path.join(dir, 'model.safetensors.index.json'), JSON.stringify(index));
      const e = await loadError(dir);
      expect(e.code).toBe('HF_TENSOR_MISSING');
      expect(e.file).toBe(path.join(dir, 'model-00001-of-00002.safetensors'));
      expect(e.field).toBe(moved);
    });

    it('a model too large for the wasm heap, before any weight is read', async () => {
      const dir = path.join(root, 'qwen2.5-1.5b-shaped');
      await mkdir(dir, { recursive: true });
      const config = JSON.parse(await readFile(path.join(modelDir('qwen2-tiny'), 'config.json'), 'utf8')) as Record<string, unknown>;
      Object.assign(config, { vocab_size: 151936, hidden_size: 1536, intermediate_size: 8960, num_hidden_layers: 28, num_attention_heads: 12, num_key_value_heads: 2 });
      await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
      // No weight file at all: the refusal must come first.
      const e = await loadError(dir);
      expect(e.code).toBe('HF_OUT_OF_MEMORY');
      expect(e.file).toBe(path.join(dir, 'config.json'));
      expect(e.message).toMatch(/1543\.7M parameters: .* does not fit the wasm backend's 4\.00 GiB heap/);
    });
  });
});
