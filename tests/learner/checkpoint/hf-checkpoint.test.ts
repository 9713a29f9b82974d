/**
 * Issue 36, item 5 (checkpoints of Hugging Face runs): write → read round trips in both modes on
 * the tiny fixtures, the checkpoint folder being a PEFT adapter (lora) or a model folder (full),
 * the kinds kept apart, and every kind of damage reported naming the file and the field.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkpointKind,
  disposeHfCheckpoint,
  namedWeights,
  readHfCheckpoint,
  writeHfCheckpoint,
  type HfCheckpointState,
} from '../../../learner/checkpoint/hf-checkpoint.ts';
import { readCheckpoint } from '../../../learner/checkpoint/read.ts';
import { checkpointJson, writeCheckpointFiles } from '../../../learner/checkpoint/write.ts';
import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { exportPeftAdapter } from '../../../policy/hf/lora/export-peft-adapter.ts';
import { loadPeftAdapter } from '../../../policy/hf/lora/load-peft-adapter.ts';
import type { LoraAdapters } from '../../../policy/hf/lora/lora-adapters.ts';
import { adapterValues, hfState, modelDir, optimizerBlob, rewriteListed, trainedAdapters } from './hf-fixtures.ts';

const BASE = modelDir('qwen2-tiny');
let root: string;
let base: HfCausalLm;
let adapters: LoraAdapters;
let optimizer: Uint8Array;
let cases = 0;
const fresh = (): string => path.join(root, `case-${++cases}`, 'checkpoint');

const writeLora = (dir: string, step = 3, state?: HfCheckpointState): Promise<string> =>
  writeHfCheckpoint(dir, { state: state ?? hfState('lora', step, BASE, base.config, adapters), adapters, optimizer });

const logits = (model: HfCausalLm, ids: number[]): Float32Array => tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);

beforeAll(async () => {
  await selectBackend('wasm');
  root = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-ckpt-'));
  base = (await loadHfModel(BASE)).model;
  adapters = trainedAdapters(base.config, { r: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'down_proj'] }, 5);
  optimizer = await optimizerBlob(1);
});
afterAll(() => {
  adapters.dispose();
  base.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('a LoRA run checkpoint', () => {
  it('round-trips the state, the adapters (bit for bit) and the optimizer blob, from the run folder', async () => {
    const tensors = tf.memory().numTensors;
    const dir = await writeLora(fresh(), 3);
    expect(tf.memory().numTensors).toBe(tensors);
    expect(readdirSync(dir).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors', 'manifest.json', 'optimizer.bin', 'state.json']);
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toMatchObject({ format: 'actorgym-checkpoint', version: 1, kind: 'hf', step: 3 });
    const read = await readHfCheckpoint(path.dirname(dir));
    expect(read.dir).toBe(dir);
    expect(read.data.state).toEqual(hfState('lora', 3, BASE, base.config, adapters));
    expect(read.data.optimizer).toEqual(optimizer);
    expect(read.data.weights).toBeUndefined();
    expect(read.data.adapters!.config).toEqual(adapters.config);
    expect(adapterValues(read.data.adapters!)).toEqual(adapterValues(adapters));
    expect(read.data.adapters!.variables.every((v) => v.trainable)).toBe(true);
    expect(await checkpointKind(path.dirname(dir))).toBe('hf');
    disposeHfCheckpoint(read.data);
    expect(tf.memory().numTensors).toBe(tensors);
    // A damaged adapter frees what it had read before failing.
    rewriteListed(dir, 'adapter_model.safetensors', readFileSync(path.join(dir, 'adapter_model.safetensors')).subarray(0, 200));
    await expect(readHfCheckpoint(dir)).rejects.toThrow(/CKPT_CORRUPT/);
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('is itself a PEFT adapter folder: its two files are byte for byte what exportPeftAdapter writes', async () => {
    const dir = await writeLora(fresh());
    const exported = path.join(root, 'exported-peft');
    await exportPeftAdapter(adapters, exported, { baseModelNameOrPath: BASE });
    for (const name of ['adapter_config.json', 'adapter_model.safetensors']) {
      expect(readFileSync(path.join(dir, name)), name).toEqual(readFileSync(path.join(exported, name)));
    }
    const loaded = await loadPeftAdapter(dir, base.config);
    expect(loaded.baseModelNameOrPath).toBe(BASE);
    expect(adapterValues(loaded.adapters)).toEqual(adapterValues(adapters));
    loaded.adapters.dispose();
  });

  it('a write with a state that fails its schema, or adapters that do not match it, is refused before anything is written', async () => {
    const target = fresh();
    const good = hfState('lora', 1, BASE, base.config, adapters);
    await expect(writeLora(target, 1, { ...good, hf: { ...good.hf, base: 'relative/model' } })).rejects.toThrow(/state\.json: field 'hf\.base': must be an absolute path; nothing was written/);
    await expect(writeLora(target, 1, { ...good, hf: { ...good.hf, lora: { ...good.hf.lora!, r: 8 } } })).rejects.toThrow(/LoRA config .* differs from state\.hf\.lora/);
    await expect(writeHfCheckpoint(target, { state: good, optimizer })).rejects.toThrow(/mode "lora" takes `adapters`/);
    expect(existsSync(path.dirname(target))).toBe(false);
  });
});

describe('a full fine-tuning run checkpoint', () => {
  it('round-trips every weight, and the folder loads as a model giving the same logits', async () => {
    const weights = namedWeights(base.config, base.weights);
    const state = hfState('full', 4, BASE, base.config);
    const tensors = tf.memory().numTensors;
    const dir = await writeHfCheckpoint(fresh(), { state, weights, optimizer });
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'manifest.json', 'model.safetensors', 'optimizer.bin', 'state.json']);
    expect(readFileSync(path.join(dir, 'config.json'))).toEqual(readFileSync(path.join(BASE, 'config.json')));
    const read = await readHfCheckpoint(dir);
    expect(read.data.state).toEqual(state);
    expect(read.data.adapters).toBeUndefined();
    expect(Object.keys(read.data.weights!).sort()).toEqual(Object.keys(weights).sort());
    for (const [name, t] of Object.entries(weights)) {
      expect(read.data.weights![name]!.shape, name).toEqual(t.shape);
      expect(read.data.weights![name]!.dataSync(), name).toEqual(t.dataSync());
    }
    disposeHfCheckpoint(read.data);
    expect(tf.memory().numTensors).toBe(tensors);
    const reloaded = (await loadHfModel(dir)).model;
    expect(logits(reloaded, [1, 5, 9, 2])).toEqual(logits(base, [1, 5, 9, 2]));
    reloaded.dispose();
  });
});

describe('the two kinds of checkpoint are kept apart', () => {
  it("the transformer's reader refuses a Hugging Face run's checkpoint, saying what it is and what to do", async () => {
    const dir = await writeLora(fresh());
    await expect(readCheckpoint(dir)).rejects.toThrow(/CKPT_INCOMPATIBLE: .* is the checkpoint of a Hugging Face model run \(kind "hf"\).*actorgym export --checkpoint RUN --format peft\|merged/);
  });

  it("the Hugging Face reader refuses the transformer's checkpoint", async () => {
    const dir = fresh();
    await writeCheckpointFiles(dir, { step: 1, files: [['state.json', checkpointJson({ step: 1 })]] });
    expect(await checkpointKind(dir)).toBe('transformer');
    await expect(readHfCheckpoint(dir)).rejects.toThrow(/CKPT_INCOMPATIBLE: .* is the checkpoint of actorgym's own transformer, not of a Hugging Face model run: it is not a Hugging Face model/);
  });
});

describe('a damaged checkpoint is an error naming the file and the field', () => {
  it('a truncated adapter, a flipped byte, a missing file', async () => {
    const a = await writeLora(fresh());
    const file = path.join(a, 'adapter_model.safetensors');
    const size = readFileSync(file).byteLength;
    truncateSync(file, size - 64);
    await expect(readHfCheckpoint(a)).rejects.toThrow(new RegExp(`CKPT_CORRUPT: .*adapter_model\\.safetensors is truncated: ${size - 64} bytes, the manifest says ${size}`));
    const b = await writeLora(fresh());
    const bytes = readFileSync(path.join(b, 'optimizer.bin'));
    bytes[20] = (bytes[20] ?? 0) ^ 0xff;
    writeFileSync(path.join(b, 'optimizer.bin'), bytes);
    await expect(readHfCheckpoint(b)).rejects.toThrow(/CKPT_CORRUPT: .*optimizer\.bin fails its checksum/);
    const c = await writeLora(fresh());
    rmSync(path.join(c, 'adapter_config.json'));
    await expect(readHfCheckpoint(c)).rejects.toThrow(/CKPT_CORRUPT: .*adapter_config\.json is missing/);
  });

  it('a state.json field that fails the schema, not JSON, or at another step', async () => {
    const state = hfState('lora', 3, BASE, base.config, adapters);
    const cases: [unknown, RegExp][] = [
      [{ ...state, hf: { ...state.hf, mode: 'half' } }, /state\.json: field 'hf\.mode': expected one of lora\|full/],
      [{ ...state, hf: { ...state.hf, lora: undefined } }, /state\.json: field 'hf\.lora': missing \(mode "lora" needs the LoRA config\)/],
      [{ ...state, hf: { ...state.hf, base: 'models/qwen' } }, /state\.json: field 'hf\.base': must be an absolute path/],
      [{ ...state, hf: { ...state.hf, lora: { ...state.hf.lora, targetModules: ['q_proj', 'qkv'] } } }, /state\.json: field 'hf\.lora\.targetModules\.1': expected one of/],
      [{ ...state, step: 9 }, /state\.json is at step 9, the manifest at 3/],
    ];
    for (const [value, error] of cases) {
      const dir = await writeLora(fresh());
      rewriteListed(dir, 'state.json', checkpointJson(value));
      await expect(readHfCheckpoint(dir)).rejects.toThrow(error);
    }
    const dir = await writeLora(fresh());
    rewriteListed(dir, 'state.json', '{"step": 3,');
    await expect(readHfCheckpoint(dir)).rejects.toThrow(/CKPT_CORRUPT: .*state\.json is not valid JSON/);
  });

  it('adapter files that do not fit the model or state.json, an unreadable base, weights that do not fit config.json', async () => {
    const a = await writeLora(fresh());
    const config = JSON.parse(readFileSync(path.join(a, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
    rewriteListed(a, 'adapter_config.json', JSON.stringify({ ...config, r: 2 }));
    await expect(readHfCheckpoint(a)).rejects.toThrow(/CKPT_CORRUPT: .*adapter_model\.safetensors: base_model\.model\.model\.layers\.0\.self_attn\.q_proj\.lora_A\.weight: shape \[4, 32\] does not fit r 2/);
    const b = await writeLora(fresh());
    rewriteListed(b, 'adapter_config.json', JSON.stringify({ ...config, lora_alpha: 16 }));
    await expect(readHfCheckpoint(b)).rejects.toThrow(/adapter_config\.json does not match .*state\.json field 'hf\.lora'/);
    const state = hfState('lora', 3, BASE, base.config, adapters);
    const c = await writeLora(fresh(), 3, { ...state, hf: { ...state.hf, base: path.join(root, 'moved-away') } });
    await expect(readHfCheckpoint(c)).rejects.toThrow(/CKPT_INCOMPATIBLE: .*state\.json: field 'hf\.base': the base model folder .*moved-away cannot be read/);
    const d = await writeHfCheckpoint(fresh(), { state: hfState('full', 2, BASE, base.config), weights: namedWeights(base.config, base.weights), optimizer });
    const baseConfig = JSON.parse(readFileSync(path.join(d, 'config.json'), 'utf8')) as Record<string, unknown>;
    rewriteListed(d, 'config.json', JSON.stringify({ ...baseConfig, intermediate_size: 96 }));
    await expect(readHfCheckpoint(d)).rejects.toThrow(/CKPT_CORRUPT: .*model\.safetensors: model\.layers\.0\.mlp\.gate_proj\.weight has shape \[\d+, 32\], config\.json implies \[96, 32\]/);
  });
});
