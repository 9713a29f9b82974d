/**
 * Issue 36, item 6 (`actorgym export`, the library part): a Hugging Face run's checkpoint exported
 * as a PEFT adapter (loadPeftAdapter gives the same adapters) or a merged model folder (loadHfModel
 * loads it, its logits equal the adapter-attached model's ≤ 1e-5, the tokenizer files come along);
 * bf16 is the float32 export rounded; what cannot be exported is refused; nothing is half-written.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeNamedWeights, exportHfCheckpoint, namedWeights, writeHfCheckpoint, writeNamedWeights } from '../../../learner/checkpoint/hf-checkpoint.ts';
import { checkpointJson, writeCheckpointFiles } from '../../../learner/checkpoint/write.ts';
import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora, type LoraCausalLm } from '../../../policy/hf/lora/attach-lora.ts';
import { loadPeftAdapter } from '../../../policy/hf/lora/load-peft-adapter.ts';
import { fromFloat32, toFloat32 } from '../../../policy/hf/safetensors/dtypes.ts';
import { SafetensorsFile } from '../../../policy/hf/safetensors/safetensors-file.ts';
import { adapterValues, hfState, modelDir, optimizerBlob, trainedAdapters } from './hf-fixtures.ts';

const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja', 'generation_config.json'];
const INPUTS = [[1, 5, 9, 2, 33], [7, 7, 100, 255]];
let root: string;
let base: string;
let lora: LoraCausalLm;
let loraRun: string;
let fullRun: string;
let cases = 0;
const out = (): string => path.join(root, 'out', `export-${++cases}`);
const logits = (model: HfCausalLm, ids: number[]): Float32Array => tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);
const maxDiff = (a: Float32Array, b: Float32Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);
const leftovers = (): string[] => readdirSync(path.join(root, 'out')).filter((n) => n.includes('.partial-'));

beforeAll(async () => {
  await selectBackend('wasm');
  root = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-export-'));
  mkdirSync(path.join(root, 'out'));
  // The tiny model with the files a real model folder has beside its weights.
  base = path.join(root, 'base');
  cpSync(modelDir('qwen2-tiny'), base, { recursive: true });
  cpSync(path.join(modelDir('tokenizer'), 'tiny', 'tokenizer.json'), path.join(base, 'tokenizer.json'));
  cpSync(path.join(modelDir('tokenizer'), 'tiny', 'tokenizer_config.json'), path.join(base, 'tokenizer_config.json'));
  writeFileSync(path.join(base, 'chat_template.jinja'), '{% for m in messages %}{{ m.content }}{% endfor %}');
  writeFileSync(path.join(base, 'generation_config.json'), '{"eos_token_id": 2}\n');
  const model = (await loadHfModel(base)).model;
  lora = attachLora(model, trainedAdapters(model.config, { r: 4, alpha: 8, targetModules: ['q_proj', 'k_proj', 'o_proj', 'up_proj'] }, 9));
  const optimizer = await optimizerBlob(3);
  loraRun = path.join(root, 'lora-run');
  await writeHfCheckpoint(path.join(loraRun, 'checkpoint'), { state: hfState('lora', 5, base, model.config, lora.adapters), adapters: lora.adapters, optimizer });
  // A "full" run: the base weights with one tensor changed, so the export is not the base.
  const weights = { ...namedWeights(model.config, model.weights) };
  const bumped = tf.add(weights['model.norm.weight']!, 0.5);
  weights['model.norm.weight'] = bumped;
  fullRun = path.join(root, 'full-run');
  await writeHfCheckpoint(path.join(fullRun, 'checkpoint'), { state: hfState('full', 6, base, model.config), weights, optimizer });
  bumped.dispose();
});
afterAll(() => {
  lora.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('export --format peft', () => {
  it('writes the adapter folder; loadPeftAdapter reads back the same adapters', async () => {
    const dir = out();
    const result = await exportHfCheckpoint(loraRun, { format: 'peft', out: dir });
    expect(result).toMatchObject({ out: dir, format: 'peft', dtype: 'f32', step: 5, mode: 'lora' });
    expect(readdirSync(dir).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const loaded = await loadPeftAdapter(dir, lora.withoutAdapters.config);
    expect(loaded.baseModelNameOrPath).toBe(base);
    expect(adapterValues(loaded.adapters)).toEqual(adapterValues(lora.adapters));
    loaded.adapters.dispose();
    const named = out();
    await exportHfCheckpoint(loraRun, { format: 'peft', out: named, baseModelName: 'Qwen/Qwen2.5-0.5B-Instruct' });
    expect(JSON.parse(readFileSync(path.join(named, 'adapter_config.json'), 'utf8')).base_model_name_or_path).toBe('Qwen/Qwen2.5-0.5B-Instruct');
  });

  it('is refused for a full fine-tuning run and for a transformer checkpoint, writing nothing', async () => {
    const dir = out();
    await expect(exportHfCheckpoint(fullRun, { format: 'peft', out: dir })).rejects.toThrow(/CKPT_INCOMPATIBLE: .* is a full fine-tuning run .* no LoRA adapter to export as peft; use --format merged/);
    const transformer = path.join(root, 'transformer-run', 'checkpoint');
    await writeCheckpointFiles(transformer, { step: 1, files: [['state.json', checkpointJson({ step: 1 })]] });
    await expect(exportHfCheckpoint(transformer, { format: 'merged', out: dir })).rejects.toThrow(/CKPT_INCOMPATIBLE: .*own transformer.* it is not a Hugging Face model and cannot be exported/);
    expect(existsSync(dir)).toBe(false);
    expect(leftovers()).toEqual([]);
  });
});

describe('export --format merged', () => {
  it('a LoRA run: a model folder whose logits equal the adapter-attached model (≤ 1e-5), tokenizer files copied', async () => {
    const dir = out();
    const tensors = tf.memory().numTensors;
    const result = await exportHfCheckpoint(loraRun, { format: 'merged', out: dir });
    expect(tf.memory().numTensors).toBe(tensors);
    expect(result.files.map((f) => f.name).sort()).toEqual(['config.json', 'model.safetensors', ...TOKENIZER_FILES].sort());
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'model.safetensors', ...TOKENIZER_FILES].sort());
    for (const name of TOKENIZER_FILES) expect(readFileSync(path.join(dir, name)), name).toEqual(readFileSync(path.join(base, name)));
    expect(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'))).toEqual(JSON.parse(readFileSync(path.join(base, 'config.json'), 'utf8')));
    const merged = (await loadHfModel(dir)).model;
    for (const ids of INPUTS) {
      const attached = logits(lora.withAdapters, ids);
      expect(maxDiff(attached, logits(lora.withoutAdapters, ids))).toBeGreaterThan(0.05);
      expect(maxDiff(logits(merged, ids), attached)).toBeLessThanOrEqual(1e-5);
    }
    merged.dispose();
  });

  it('a full run: its own weights; bf16 is the float32 export rounded to nearest even, and config.json says bfloat16', async () => {
    const f32 = out();
    await exportHfCheckpoint(fullRun, { format: 'merged', out: f32 });
    const reloaded = (await loadHfModel(f32)).model;
    expect(Array.from(reloaded.weights.finalNorm.dataSync())).toEqual(Array.from(tf.tidy(() => tf.add(lora.withoutAdapters.weights.finalNorm, 0.5).dataSync())));
    reloaded.dispose();
    const bf16 = out();
    await exportHfCheckpoint(fullRun, { format: 'merged', out: bf16, dtype: 'bf16' });
    expect(JSON.parse(readFileSync(path.join(bf16, 'config.json'), 'utf8')).dtype).toBe('bfloat16');
    const [a, b] = await Promise.all([SafetensorsFile.open(path.join(f32, 'model.safetensors')), SafetensorsFile.open(path.join(bf16, 'model.safetensors'))]);
    expect(b.tensorNames.sort()).toEqual(a.tensorNames.sort());
    for (const name of a.tensorNames) {
      expect(b.entry(name).dtype, name).toBe('BF16');
      expect(await b.readFloat32(name), name).toEqual(toFloat32(fromFloat32(await a.readFloat32(name), 'BF16'), 'BF16'));
    }
    await Promise.all([a.close(), b.close()]);
    const model = (await loadHfModel(bf16)).model;
    model.dispose();
  });
});

describe('model.safetensors streamed tensor by tensor', () => {
  it('is byte for byte the file encodeNamedWeights makes in memory (f32, bf16, f16; tied and untied embeddings)', async () => {
    const llama = (await loadHfModel(modelDir('llama3-tiny'))).model;
    for (const model of [lora.withoutAdapters, llama]) {
      const named = namedWeights(model.config, model.weights);
      for (const dtype of ['F32', 'BF16', 'F16'] as const) {
        const file = path.join(root, `streamed-${model.config.architecture}-${dtype}.safetensors`);
        await writeNamedWeights(file, model.config, named, dtype);
        expect(readFileSync(file).equals(Buffer.from(await encodeNamedWeights(model.config, named, dtype))), `${model.config.architecture} ${dtype}`).toBe(true);
      }
    }
    expect(() => namedWeights(lora.withAdapters.config, lora.withAdapters.weights)).toThrow(/has a LoRA adapter attached; merge it/);
    await expect(writeNamedWeights(path.join(root, 'x.safetensors'), llama.config, { ...namedWeights(llama.config, llama.weights), extra: llama.weights.finalNorm })).rejects.toThrow(/weights: extra is not part of a llama model/);
    llama.dispose();
  });
});

describe('--out is written atomically', () => {
  it('an existing non-empty --out is refused, and replaced whole with force; an empty one is used', async () => {
    const dir = out();
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'keep.txt'), 'mine');
    await expect(exportHfCheckpoint(loraRun, { format: 'peft', out: dir })).rejects.toThrow(/EXPORT_OUT_EXISTS: .* already exists and is not empty; choose another --out, or pass --force/);
    expect(readdirSync(dir)).toEqual(['keep.txt']);
    await exportHfCheckpoint(loraRun, { format: 'peft', out: dir, force: true });
    expect(readdirSync(dir).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const empty = out();
    mkdirSync(empty);
    await exportHfCheckpoint(loraRun, { format: 'peft', out: empty });
    expect(readdirSync(empty).length).toBe(2);
    expect(leftovers()).toEqual([]);
  });

  it('a corrupt checkpoint, or a failure after some files are written, leaves no --out and no temp folder', async () => {
    const damaged = path.join(root, 'damaged-run');
    cpSync(loraRun, damaged, { recursive: true });
    const file = path.join(damaged, 'checkpoint', 'adapter_model.safetensors');
    truncateSync(file, 100);
    const dir = out();
    await expect(exportHfCheckpoint(damaged, { format: 'merged', out: dir })).rejects.toThrow(/CKPT_CORRUPT: .*adapter_model\.safetensors is truncated/);
    // A base whose tokenizer.json cannot be copied: config.json and model.safetensors are written first.
    const brokenBase = path.join(root, 'broken-base');
    cpSync(base, brokenBase, { recursive: true });
    rmSync(path.join(brokenBase, 'tokenizer.json'));
    mkdirSync(path.join(brokenBase, 'tokenizer.json'));
    const run = path.join(root, 'broken-base-run', 'checkpoint');
    const state = hfState('lora', 2, brokenBase, lora.withoutAdapters.config, lora.adapters);
    await writeHfCheckpoint(run, { state, adapters: lora.adapters, optimizer: await optimizerBlob(4) });
    await expect(exportHfCheckpoint(run, { format: 'merged', out: dir })).rejects.toThrow(/EISDIR|tokenizer\.json/);
    expect(existsSync(dir)).toBe(false);
    expect(leftovers()).toEqual([]);
  });
});
