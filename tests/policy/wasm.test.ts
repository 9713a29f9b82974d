import * as tf from '@tensorflow/tfjs-core';
import { afterAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import { disposeCache } from '../../policy/transformer/kv-cache.ts';

const CONFIG = { vocabSize: 48, dModel: 32, nLayers: 2, nHeads: 4, dFF: 64, maxContext: 40 };

/** Gradient of the mean next-token log-prob of `tokens`, per parameter. */
function gradients(model: Transformer, tokens: number[][]): Record<string, Float32Array> {
  return tf.tidy(() => {
    const t = tf.tensor2d(tokens, [tokens.length, tokens[0]!.length], 'int32');
    const { grads } = tf.variableGrads(() => {
      const s = model.logProbsOf(t);
      return tf.add(tf.mean(s.logProbs), tf.mul(tf.mean(s.values), 0.5)) as tf.Scalar;
    }, Object.values(model.params));
    return Object.fromEntries(Object.entries(model.params).map(([name, v]) => [name, grads[v.name]!.dataSync() as Float32Array]));
  });
}

const tokens = [
  [1, 7, 9, 12, 40, 41, 3, 4, 8, 8, 9, 2, 30, 31, 3, 6],
  [1, 17, 19, 22, 10, 11, 13, 14, 18, 18, 19, 12, 20, 21, 23, 26],
];

describe('wasm backend specifics', () => {
  afterAll(async () => {
    await selectBackend('cpu');
  });

  it('trains: the same gradients and logits on wasm as on cpu (head kernels, custom grads)', async () => {
    await selectBackend('cpu');
    const model = new Transformer(CONFIG, { seed: 5 });
    const onCpu = gradients(model, tokens);
    const logitsCpu = tf.tidy(() => model.forward(tf.tensor2d(tokens, [2, 16], 'int32')).logits.dataSync());
    expect(await selectBackend('wasm')).toBe('wasm');
    const onWasm = gradients(model, tokens);
    const logitsWasm = tf.tidy(() => model.forward(tf.tensor2d(tokens, [2, 16], 'int32')).logits.dataSync());
    let worst = 0;
    for (let i = 0; i < logitsCpu.length; i++) worst = Math.max(worst, Math.abs(logitsCpu[i]! - logitsWasm[i]!));
    expect(worst).toBeLessThan(1e-4);
    for (const [name, g] of Object.entries(onCpu)) {
      const w = onWasm[name]!;
      let diff = 0;
      let scale = 1e-6;
      for (let i = 0; i < g.length; i++) {
        diff = Math.max(diff, Math.abs(g[i]! - w[i]!));
        scale = Math.max(scale, Math.abs(g[i]!));
      }
      expect(diff / scale, name).toBeLessThan(1e-3);
    }
    model.dispose();
  });

  it('KV-cache decoding on wasm matches the full forward', async () => {
    await selectBackend('wasm');
    const model = new Transformer(CONFIG, { seed: 6 });
    const v = CONFIG.vocabSize;
    const seq = tokens[0]!;
    const full = tf.tidy(() => model.forward(tf.tensor2d([seq], [1, 16], 'int32')).logits.dataSync());
    const { caches, logits } = await model.prefill([undefined, undefined], [seq.slice(0, 10), seq.slice(0, 4)]);
    let worst = 0;
    for (let j = 0; j < v; j++) worst = Math.max(worst, Math.abs(logits[j]! - full[9 * v + j]!), Math.abs(logits[v + j]! - full[3 * v + j]!));
    const batch = model.openDecode([{ key: 'a', cache: caches[0]! }, { key: 'b', cache: caches[1]! }]);
    const step = await batch.step([seq[10]!, seq[4]!]);
    for (let j = 0; j < v; j++) worst = Math.max(worst, Math.abs(step[j]! - full[10 * v + j]!), Math.abs(step[v + j]! - full[4 * v + j]!));
    expect(worst).toBeLessThan(1e-4);
    [...batch.close().values(), ...caches].forEach(disposeCache);
    model.dispose();
  });

  it('prefill on wasm: the fused no-past path and the general path match the full forward', async () => {
    await selectBackend('wasm');
    const model = new Transformer(CONFIG, { seed: 8 });
    const v = CONFIG.vocabSize;
    const seqs = [tokens[0]!, tokens[1]!.slice(0, 11), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]];
    const full = seqs.map((s) => tf.tidy(() => model.forward(tf.tensor2d([s], [1, s.length], 'int32')).logits.dataSync()));
    const firstLens = [9, 3, 14]; // padded to 14 in one call with no past: the fused kernel
    const before = tf.memory().numTensors;
    const first = await model.prefill(seqs.map(() => undefined), seqs.map((s, i) => s.slice(0, firstLens[i])));
    // The caches it returns continue in the general path (a past), so their keys and values are checked too.
    const second = await model.prefill(first.caches, seqs.map((s, i) => s.slice(firstLens[i], s.length)).map((r) => (r.length > 0 ? r : [4])));
    let worst = 0;
    seqs.forEach((s, i) => {
      const at = firstLens[i]! - 1;
      for (let j = 0; j < v; j++) worst = Math.max(worst, Math.abs(first.logits[i * v + j]! - full[i]![at * v + j]!));
      expect(first.caches[i]!.length).toBe(firstLens[i]);
      expect(first.caches[i]!.layers[0]!.k.shape).toEqual([CONFIG.nHeads, firstLens[i], CONFIG.dModel / CONFIG.nHeads]);
      if (s.length > firstLens[i]!) {
        for (let j = 0; j < v; j++) worst = Math.max(worst, Math.abs(second.logits[i * v + j]! - full[i]![(s.length - 1) * v + j]!));
      }
    });
    expect(worst).toBeLessThan(1e-4);
    [...first.caches, ...second.caches].forEach(disposeCache);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });

  it('leaks no tensors across Adam steps', async () => {
    await selectBackend('wasm');
    const model = new Transformer(CONFIG, { seed: 7 });
    const opt = tf.train.adam(1e-3);
    const batch = tf.tensor2d(tokens, [2, 16], 'int32');
    const step = (): number => {
      const loss = opt.minimize(() => tf.neg(tf.mean(model.logProbsOf(batch).logProbs)) as tf.Scalar, true, Object.values(model.params));
      const value = loss!.dataSync()[0]!;
      loss!.dispose();
      return value;
    };
    const first = step();
    const count = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) step();
    expect(tf.memory().numTensors).toBe(count);
    expect(step()).toBeLessThan(first);
    opt.dispose();
    batch.dispose();
    model.dispose();
  });
});
