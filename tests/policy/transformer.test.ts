import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../policy/backend.ts';
import { Transformer } from '../../policy/transformer/transformer.ts';
import type { SequenceCache } from '../../policy/transformer/kv-cache.ts';
import { disposeCache } from '../../policy/transformer/kv-cache.ts';
import { ACT_ID, BOS_ID } from '../../policy/special-tokens.ts';
import { copyForms, type CopyForms } from '../../policy/transformer/copy-forms.ts';

const CONFIG = { vocabSize: 40, dModel: 16, nLayers: 2, nHeads: 2, dFF: 32, maxContext: 32 };

function randomTokens(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return 6 + (s % (CONFIG.vocabSize - 6));
  });
}

/** Word forms over the test vocabulary: 7 ~ 30 (same word), 9 then 10 → 33 (joined). */
const FORMS = { same: [[7, 30], [30, 7]], joined: [[9, 10, 33]] } as const satisfies CopyForms;

/** The model variants every test runs on. */
const VARIANTS = [
  { name: 'separate head', options: {} },
  { name: 'tiedEmbeddings', options: { tiedEmbeddings: true } },
  { name: 'instructionCopy', options: { instructionCopy: true } },
  { name: 'copyWordForms', options: { instructionCopy: true, copyWordForms: true, copyForms: FORMS } },
] as const;

/**
 * Sequences for a variant: with the instruction copy they open with <bos>, four instruction words
 * and <act>, so the copy's bonus is in play from position 5 on.
 */
function tokensFor(options: { readonly instructionCopy?: boolean; readonly tiedEmbeddings?: boolean; readonly copyWordForms?: boolean }, n: number, seed: number): number[] {
  const t = randomTokens(n, seed);
  if (options.instructionCopy === true) {
    t[0] = BOS_ID;
    if (n > 5) t[5] = ACT_ID;
  }
  // An instruction with a word that has another form and a pair that joins, so the forms are in play.
  if (options.copyWordForms === true && n > 5) [t[1], t[2], t[3]] = [7, 9, 10];
  return t;
}

/** A gate that is far from 0 (it starts near 0), so the tests see the bonus. */
function strengthenCopy(model: Transformer): void {
  if (!('copy.w' in model.params)) return;
  model.params['copy.w']!.assign(tf.randomNormal([model.config.dModel, 1], 0, 0.5, 'float32', 1));
  model.params['copy.b']!.assign(tf.tensor1d([2]));
}

/** Full-forward logits of one sequence, [T, V]. */
function fullLogits(model: Transformer, seq: number[]): Float32Array {
  return tf.tidy(() => model.forward(tf.tensor2d([seq], [1, seq.length], 'int32')).logits.dataSync() as Float32Array);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe.each(VARIANTS)('transformer (cpu backend, $name)', ({ options }) => {
  let model: Transformer;
  const tiedEmbeddings = 'tiedEmbeddings' in options;
  const randomTokens = (n: number, seed: number): number[] => tokensFor(options, n, seed);
  beforeAll(async () => {
    await selectBackend('cpu');
    model = new Transformer({ ...CONFIG, ...options }, { seed: 3 });
    strengthenCopy(model);
  });

  it(tiedEmbeddings ? 'has no head.w: the head is the token embedding' : 'has its own head.w', () => {
    expect('head.w' in model.params).toBe(!tiedEmbeddings);
    expect('copy.w' in model.params).toBe('instructionCopy' in options);
  });

  it('is causal: changing a future token leaves earlier logits unchanged', () => {
    const a = randomTokens(12, 1);
    const b = [...a];
    b[7] = a[7] === 10 ? 11 : 10;
    const la = fullLogits(model, a);
    const lb = fullLogits(model, b);
    const v = CONFIG.vocabSize;
    expect(maxAbsDiff(la.subarray(0, 7 * v), lb.subarray(0, 7 * v))).toBe(0);
    expect(maxAbsDiff(la.subarray(7 * v, 8 * v), lb.subarray(7 * v, 8 * v))).toBeGreaterThan(1e-6);
  });

  it('gives the same logits for a padded batch as for each row alone', () => {
    const rows = [randomTokens(10, 2), randomTokens(6, 3)];
    const padded = rows.map((r) => [...r, ...Array<number>(10 - r.length).fill(0)]);
    const batch = tf.tidy(() => model.forward(tf.tensor2d(padded, [2, 10], 'int32')).logits.dataSync() as Float32Array);
    const v = CONFIG.vocabSize;
    rows.forEach((r, i) => {
      const alone = fullLogits(model, r);
      expect(maxAbsDiff(batch.subarray(i * 10 * v, (i * 10 + r.length) * v), alone)).toBeLessThan(1e-5);
    });
  });

  it('KV-cache prefill + decode steps match the full forward (rows of different lengths)', async () => {
    const v = CONFIG.vocabSize;
    const seqs = [randomTokens(14, 4), randomTokens(9, 5), randomTokens(17, 6)];
    const splits: Array<[number, number]> = [[5, 3], [1, 4], [9, 2]]; // first prefill, second prefill; rest decoded one at a time
    const full = seqs.map((s) => fullLogits(model, s));
    const start = await model.prefill([undefined, undefined, undefined], seqs.map((s, i) => s.slice(0, splits[i]![0])));
    seqs.forEach((s, i) => {
      const pos = splits[i]![0] - 1;
      expect(maxAbsDiff(start.logits.subarray(i * v, (i + 1) * v), full[i]!.subarray(pos * v, (pos + 1) * v))).toBeLessThan(1e-4);
    });
    const second = await model.prefill(start.caches, seqs.map((s, i) => s.slice(splits[i]![0], splits[i]![0] + splits[i]![1])));
    start.caches.forEach(disposeCache);
    seqs.forEach((s, i) => {
      const pos = splits[i]![0] + splits[i]![1] - 1;
      expect(maxAbsDiff(second.logits.subarray(i * v, (i + 1) * v), full[i]!.subarray(pos * v, (pos + 1) * v))).toBeLessThan(1e-4);
    });
    const batch = model.openDecode(second.caches.map((cache, i) => ({ key: `s${i}`, cache })));
    const fed = seqs.map((_, i) => splits[i]![0] + splits[i]![1]);
    for (;;) {
      const keys = batch.activeKeys;
      if (keys.length === 0) break;
      const idx = keys.map((k) => Number(k.slice(1)));
      const logits = await batch.step(idx.map((i) => seqs[i]![fed[i]!]!));
      idx.forEach((i, row) => {
        const pos = fed[i]!;
        expect(maxAbsDiff(logits.subarray(row * v, (row + 1) * v), full[i]!.subarray(pos * v, (pos + 1) * v))).toBeLessThan(1e-4);
        fed[i]!++;
        if (fed[i] === seqs[i]!.length) batch.finish(`s${i}`);
      });
    }
    const caches = batch.close();
    second.caches.forEach(disposeCache);
    seqs.forEach((s, i) => expect(caches.get(`s${i}`)!.length).toBe(s.length));
    // A cache produced by decoding continues exactly like one produced by prefill.
    const more = await model.prefill(seqs.map((_, i) => caches.get(`s${i}`)), seqs.map(() => [7]));
    for (let i = 0; i < seqs.length; i++) {
      const ext = fullLogits(model, [...seqs[i]!, 7]);
      const pos = seqs[i]!.length;
      expect(maxAbsDiff(more.logits.subarray(i * v, (i + 1) * v), ext.subarray(pos * v, (pos + 1) * v))).toBeLessThan(1e-4);
    }
    [...caches.values(), ...more.caches].forEach((c: SequenceCache) => disposeCache(c));
  });

  it('logProbsOf is aligned on the token it scores and matches log-softmax of the forward logits', () => {
    const seq = randomTokens(8, 7);
    const full = fullLogits(model, seq);
    const v = CONFIG.vocabSize;
    const scores = model.logProbsOf(tf.tensor2d([seq], [1, 8], 'int32'));
    const lp = scores.logProbs.dataSync();
    const ent = scores.entropy.dataSync();
    const val = scores.values.dataSync();
    expect(lp[0]).toBe(0);
    expect(ent[0]).toBe(0);
    expect(val[0]).toBe(0);
    for (let t = 1; t < 8; t++) {
      const row = Array.from(full.subarray((t - 1) * v, t * v));
      const max = Math.max(...row);
      const logZ = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
      expect(lp[t]).toBeCloseTo(row[seq[t]!]! - logZ, 4);
      const h = -row.reduce((a, x) => a + Math.exp(x - logZ) * (x - logZ), 0);
      expect(ent[t]).toBeCloseTo(h, 4);
    }
    tf.dispose([scores.logProbs, scores.entropy, scores.values]);
  });

  it('round-trips weights by name and rejects mismatched ones', () => {
    const other = new Transformer({ ...CONFIG, ...options }, { seed: 99 });
    other.setWeights(model.getWeights());
    const seq = randomTokens(6, 8);
    expect(maxAbsDiff(fullLogits(other, seq), fullLogits(model, seq))).toBe(0);
    expect(() => other.setWeights({ 'tok_emb': tf.zeros([1, 1]) })).toThrow(/missing/);
    other.dispose();
  });
});

describe('optimised path vs the straightforward reference implementation (cpu)', () => {
  it.each(VARIANTS)('gives the same log-probs, entropies, values and gradients ($name)', async ({ options }) => {
    const { referenceLogProbsOf } = await import('../../policy/transformer/reference-forward.ts');
    await selectBackend('cpu');
    const model = new Transformer({ ...CONFIG, nHeads: 4, ...options }, { seed: 11 });
    strengthenCopy(model);
    // Row 2 opens without <bos>: no instruction, no bonus.
    const tokens = tf.tensor2d([tokensFor(options, 12, 12), randomTokens(12, 13)], [2, 12], 'int32');
    const objective = (s: { logProbs: tf.Tensor; entropy: tf.Tensor; values: tf.Tensor }): tf.Scalar =>
      tf.addN([tf.mean(s.logProbs), tf.mul(0.3, tf.mean(s.entropy)), tf.mean(tf.square(s.values))]) as tf.Scalar;
    const vars = Object.values(model.params);
    const ours = tf.variableGrads(() => objective(model.logProbsOf(tokens)), vars);
    const ref = tf.variableGrads(() => objective(referenceLogProbsOf(model.params, model.config, tokens)), vars);
    expect(Math.abs(ours.value.dataSync()[0]! - ref.value.dataSync()[0]!)).toBeLessThan(1e-5);
    for (const v of vars) {
      const a = ours.grads[v.name]!.dataSync();
      const b = ref.grads[v.name]!.dataSync();
      let diff = 0;
      let scale = 1e-8;
      for (let i = 0; i < a.length; i++) {
        diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
        scale = Math.max(scale, Math.abs(b[i]!));
      }
      expect(diff / scale).toBeLessThan(1e-4);
    }
    model.dispose();
  });
});

/** The copy's bonus at (position, id) of `seq`: the logits with a constant gate of 5 minus those with a gate of 0. */
function copyBonus(model: Transformer, seq: number[]): (pos: number, id: number) => number {
  const v = CONFIG.vocabSize;
  model.params['copy.w']!.assign(tf.zeros([CONFIG.dModel, 1]));
  model.params['copy.b']!.assign(tf.tensor1d([5]));
  const after = fullLogits(model, seq);
  model.params['copy.b']!.assign(tf.tensor1d([0]));
  const none = fullLogits(model, seq);
  return (pos, id) => after[pos * v + id]! - none[pos * v + id]!;
}

describe('instruction copy', () => {
  it('adds the gate to the logits of the instruction\'s words, from the token that closes it on', async () => {
    await selectBackend('cpu');
    const model = new Transformer({ ...CONFIG, instructionCopy: true }, { seed: 5 });
    const seq = [BOS_ID, 10, 11, 10, ACT_ID, 12, 13];
    const bonus = copyBonus(model, seq);
    for (let pos = 0; pos < seq.length; pos++) {
      for (const id of [10, 11, 12, 13, 20]) expect(bonus(pos, id)).toBeCloseTo(pos >= 4 && (id === 10 || id === 11) ? 5 : 0, 5);
    }
    model.dispose();
  });
});

describe('instruction copy with word forms', () => {
  it('also raises the other form of each instruction word and the word two adjacent ones join into', async () => {
    await selectBackend('cpu');
    const model = new Transformer({ ...CONFIG, instructionCopy: true, copyWordForms: true, copyForms: FORMS }, { seed: 5 });
    // 9 then 10 join into 33; 7 has the other form 30.
    const joined = copyBonus(model, [BOS_ID, 7, 9, 10, ACT_ID, 12, 13]);
    for (const id of [7, 9, 10, 30, 33, 12, 20, 31]) expect(joined(5, id)).toBeCloseTo([7, 9, 10, 30, 33].includes(id) ? 5 : 0, 5);
    // The same words in another order: 10 then 9 does not join.
    const apart = copyBonus(model, [BOS_ID, 10, 9, 7, ACT_ID, 12, 13]);
    expect(apart(5, 33)).toBeCloseTo(0, 5);
    expect(apart(5, 30)).toBeCloseTo(5, 5);
    model.dispose();
  });

  it('derives the forms from a vocabulary: the leading space and joined words', () => {
    const vocab = ['<pad>', ' go', 'go', ' pick', ' up', 'pickup', ' pickup', ' red', '1', ' to'];
    const forms = copyForms(vocab);
    const id = (t: string): number => vocab.indexOf(t);
    expect(forms.same).toEqual(expect.arrayContaining([[id(' go'), id('go')], [id('go'), id(' go')], [id(' pickup'), id('pickup')]]));
    expect(forms.same).toHaveLength(4);
    expect(forms.joined).toEqual(expect.arrayContaining([[id(' pick'), id(' up'), id('pickup')], [id(' pick'), id(' up'), id(' pickup')]]));
    expect(forms.joined).toHaveLength(2);
  });

  it('is rejected without the instruction copy or without the forms', () => {
    expect(() => new Transformer({ ...CONFIG, copyWordForms: true, copyForms: FORMS })).toThrow(/copyWordForms needs instructionCopy/);
    expect(() => new Transformer({ ...CONFIG, instructionCopy: true, copyWordForms: true })).toThrow(/needs copyForms/);
  });
});

describe('weights as a binary blob', () => {
  it('round-trips every parameter by name and shape', async () => {
    const { encodeWeights, decodeWeights } = await import('../../policy/transformer/weights-io.ts');
    await selectBackend('cpu');
    const a = new Transformer(CONFIG, { seed: 21 });
    const b = new Transformer(CONFIG, { seed: 22 });
    const blob = await encodeWeights(a.getWeights());
    // An unaligned view of the blob, as a WebSocket frame may deliver it.
    const shifted = new Uint8Array(blob.length + 1);
    shifted.set(blob, 1);
    const tensors = decodeWeights(shifted.subarray(1));
    b.setWeights(tensors);
    tf.dispose(Object.values(tensors));
    const seq = randomTokens(9, 23);
    expect(maxAbsDiff(fullLogits(a, seq), fullLogits(b, seq))).toBe(0);
    expect(() => decodeWeights(blob.subarray(0, blob.length - 4))).toThrow(/bytes/);
    a.dispose();
    b.dispose();
  });
});
