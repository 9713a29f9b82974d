/**
 * The two costs docs/benchmarks.md ("hf", where the goals are missed) blames, measured alone:
 *  - tf.matMul on the WebAssembly backend, [1024, 256] × [256, 1024]: plain, with the transposeB
 *    flag (what dX = dY·Wᵀ of a projection's gradient runs), with transposeA (dW = Xᵀ·dY), and
 *    with an explicit tf.transpose before a plain product;
 *  - the greedy pick policy/sampling.ts does in JavaScript per row of logits, at the three
 *    vocabulary sizes of bench/hf-configs.ts (64 rows, after a warm-up pass).
 *
 *   npx tsx bench/hf-op-costs.ts
 */
import * as tf from '@tensorflow/tfjs-core';

import { selectBackend } from '../policy/backend.ts';
import { mulberry32 } from '../policy/rng.ts';
import { sampleToken } from '../policy/sampling.ts';

function meanMs(f: () => tf.Tensor, repeats = 5): number {
  f().dispose();
  const start = performance.now();
  for (let i = 0; i < repeats; i++) {
    const r = f();
    r.dataSync();
    r.dispose();
  }
  return (performance.now() - start) / repeats;
}

async function main(): Promise<void> {
  await selectBackend('wasm');
  const a = tf.randomNormal([1024, 256]) as tf.Tensor2D;
  const b = tf.randomNormal([256, 1024]) as tf.Tensor2D;
  const bT = tf.randomNormal([1024, 256]) as tf.Tensor2D;
  const products: [string, () => tf.Tensor][] = [
    ['plain', () => tf.matMul(a, b)],
    ['transposeB flag', () => tf.matMul(a, bT, false, true)],
    ['transposeA flag', () => tf.matMul(a, a, true, false)],
    ['tf.transpose, then plain', () => tf.matMul(a, tf.transpose(bT))],
  ];
  for (const [name, f] of products) console.log(`matMul [1024, 256] × [256, 1024], ${name}: ${meanMs(f).toFixed(1)} ms`);
  for (const pass of [0, 1]) {
    for (const vocab of [4096, 32000, 151936]) {
      const rows = 64;
      const logits = Float32Array.from({ length: rows * vocab }, (_, i) => Math.sin(i));
      const rng = mulberry32(1);
      const start = performance.now();
      for (let r = 0; r < rows; r++) sampleToken(logits.subarray(r * vocab, (r + 1) * vocab), rng, { temperature: 0, topP: 1 });
      if (pass === 1) console.log(`greedy sampleToken, vocabulary ${vocab}: ${((performance.now() - start) / rows).toFixed(2)} ms a row`);
    }
  }
  tf.dispose([a, b, bT]);
}

await main();
