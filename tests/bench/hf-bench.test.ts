/**
 * The HF benchmark's own helpers (bench/hf-*.ts): the streamed random-model writer, the training
 * loss (through the learner's scoring) and the "does not fit" arithmetic. Tiny models only; the benchmark itself is run by hand (docs/benchmarks.md).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HF_BENCH_MODELS } from '../../bench/hf-configs.ts';
import { fullFineTuneFit } from '../../bench/hf-fit.ts';
import { writeRandomModel } from '../../bench/hf-random-model.ts';
import { nextTokenLoss, randomIds } from '../../bench/hf-train-step.ts';
import { selectBackend } from '../../policy/backend.ts';
import { parseHfConfig } from '../../policy/hf/config.ts';
import { loadHfModel } from '../../policy/hf/load-hf-model.ts';
import { countParameters } from '../../policy/hf/memory-estimate.ts';
import { trainableWeights } from '../../policy/hf/train/index.ts';

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

  it("the benchmark's loss is the learner's scoring: the mean next-token NLL, and it trains every weight of a full copy on wasm", async () => {
    const { model: base } = await loadHfModel(dir);
    const full = trainableWeights(base, { namePrefix: 'bench-test/' });
    const ids = randomIds(2, 8, 64, 1);
    const loss = (await nextTokenLoss(base, ids).data())[0]!;
    // The same number from the forward pass's logits, by hand.
    const logits = (await base.forward({ tokens: Int32Array.from(ids.flat()), batch: 2, length: 8, positions: Int32Array.from({ length: 16 }, (_, i) => i % 8), keyMask: new Uint8Array(16).fill(1) }).logits.data()) as Float32Array;
    let nll = 0;
    for (let b = 0; b < 2; b++) {
      for (let t = 0; t < 7; t++) {
        const row = logits.slice((b * 8 + t) * 64, (b * 8 + t + 1) * 64);
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((a: number, x: number) => a + Math.exp(x - max), 0));
        nll -= row[ids[b]![t + 1]!]! - lse;
      }
    }
    expect(loss).toBeCloseTo(nll / 14, 4);
    const variables = [...full.variables.values()];
    const { grads } = tf.variableGrads(() => nextTokenLoss(full.model, ids), variables);
    expect(Object.keys(grads)).toHaveLength(variables.length);
    expect(Object.values(grads).every((g) => Math.max(...Array.from(g.dataSync()).map(Math.abs)) > 0)).toBe(true);
    tf.dispose(Object.values(grads));
    full.dispose();
    base.dispose();
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
