/**
 * The HF benchmark's own helpers (bench/hf-*.ts): the streamed random-model writer, the full
 * fine-tuning copy with its wasm gradient kernel, the training loss and the "does not fit"
 * arithmetic. Tiny models only; the benchmark itself is run by hand (docs/benchmarks.md).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HF_BENCH_MODELS } from '../../bench/hf-configs.ts';
import { fullFineTuneFit } from '../../bench/hf-fit.ts';
import { fullFineTune, registerWasmSegmentSum } from '../../bench/hf-full-finetune.ts';
import { writeRandomModel } from '../../bench/hf-random-model.ts';
import { nextTokenLoss, randomIds } from '../../bench/hf-train-step.ts';
import { selectBackend } from '../../policy/backend.ts';
import { parseHfConfig } from '../../policy/hf/config.ts';
import { loadHfModel } from '../../policy/hf/load-hf-model.ts';
import { countParameters } from '../../policy/hf/memory-estimate.ts';

const TINY = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', vocab_size: 64, hidden_size: 32, intermediate_size: 64,
  num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 128, rms_norm_eps: 1e-6,
  rope_theta: 10000.0, tie_word_embeddings: true, hidden_act: 'silu', use_sliding_window: false, bos_token_id: 1, eos_token_id: 2,
};

describe('HF benchmark helpers', () => {
  let dir: string;
  beforeAll(async () => {
    await selectBackend('wasm');
    dir = await mkdtemp(path.join(os.tmpdir(), 'hf-bench-test-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes a BF16 folder the loader reads, and keeps it when asked again', async () => {
    await writeRandomModel(dir, TINY, 'BF16');
    const file = path.join(dir, 'model.safetensors');
    const first = await stat(file);
    await writeRandomModel(dir, TINY, 'BF16');
    expect((await stat(file)).mtimeMs).toBe(first.mtimeMs);
    const { model } = await loadHfModel(dir);
    const norm = await model.weights.finalNorm.data();
    expect(Array.from(norm)).toEqual(new Array(32).fill(1));
    model.dispose();
  });

  it('trains every weight of a full fine-tuning copy on wasm, the tied embedding included', async () => {
    const { model: base } = await loadHfModel(dir);
    registerWasmSegmentSum();
    const full = fullFineTune(base);
    const ids = randomIds(2, 8, 64, 1);
    const before = (await nextTokenLoss(base, ids).data())[0]!;
    expect((await nextTokenLoss(full.model, ids).data())[0]).toBeCloseTo(before, 5);
    expect(before).toBeGreaterThan(Math.log(64) - 0.5);
    const { grads } = tf.variableGrads(() => nextTokenLoss(full.model, ids), full.variables);
    expect(Object.keys(grads)).toHaveLength(full.variables.length);
    tf.dispose(Object.values(grads));
    full.dispose();
    base.dispose();
  });

  it("gives tf.gather a gradient on wasm (the tied embedding's lookup)", async () => {
    registerWasmSegmentSum();
    const table = tf.variable(tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3]));
    const ids = tf.tensor1d([2, 0, 2, 2], 'int32');
    const { grads } = tf.variableGrads(() => tf.sum(tf.mul(tf.gather(table, ids, 1), tf.tensor2d([1, 10, 100, 1000], [1, 4]))), [table]);
    // Column 2 is gathered at positions 0, 2, 3 (weights 1 + 100 + 1000), column 0 at position 1, column 1 never.
    expect(Array.from(await grads[table.name]!.data())).toEqual([10, 0, 1101, 10, 0, 1101]);
    tf.dispose([table, ids, ...Object.values(grads)]);
  });

  it('says full fine-tuning of the 0.5B-shaped model does not fit the wasm heap, with the arithmetic', () => {
    const spec = HF_BENCH_MODELS.find((m) => m.name === 'qwen2.5-0.5b-shaped')!;
    const config = parseHfConfig(spec.config);
    expect(countParameters(config)).toBeGreaterThan(490e6);
    const fit = fullFineTuneFit(config, spec.train.batch, spec.train.length, 'wasm');
    expect(fit.fits).toBe(false);
    expect(fit.arithmetic).toMatch(/= 7\.\d\d GiB .*> the wasm heap's 4\.00 GiB/);
    expect(fullFineTuneFit(parseHfConfig(HF_BENCH_MODELS[1]!.config), 2, 128, 'wasm').fits).toBe(true);
  });
});
