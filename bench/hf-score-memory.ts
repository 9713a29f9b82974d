/**
 * Peak memory and time of one forward + backward pass of the learner's scores for a Hugging Face
 * causal LM with a large vocabulary (issue 36, item 5: "chunked or recomputed activations so
 * sequences of 2–4k tokens fit"), three ways:
 *   plain     — forward('all') logits [1, T, vocab] → log-softmax → log-probs and entropies;
 *   chunked   — hfSequenceScores: output head over 128 positions at a time and attention over
 *               256 query positions at a time, both recomputed in the backward pass;
 *   chunked + recompute — the same with every decoder layer recomputed in the backward pass.
 * Model: Qwen2-shaped, random weights, vocab 32000, hidden 128, 4 layers, 4 heads / 2 kv heads,
 * MLP 512, tied embeddings; LoRA r 8 on all seven projections is what trains (the loss is a mean
 * NLL plus 0.01 × mean entropy over all positions). Batch 1, T = 512, 2048, 4096.
 *
 *   npx tsx bench/hf-score-memory.ts [--backend wasm] [--lengths 512,2048,4096] [--modes plain,chunked,chunked+recompute] [--timeout 300]
 *
 * Each (mode, T) runs in a fresh process (the WebAssembly heap only grows, and an out-of-memory
 * abort must not take the others down). Memory is measured two ways: `tf.profile`'s peakBytes
 * (the engine's largest total of live tensor bytes during the step, model weights included) and,
 * on wasm, the WebAssembly heap's size after the step (its high-water mark; capped at 4 GiB).
 * Seconds are the wall time of that one profiled step. A run that exhausts the wasm heap fails
 * with the module's Aborted() or with a kernel returning nothing (TypeError in runKernelFunc);
 * the table prints the error and the first frame in our code. No assertions.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';

import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { loadHfModel } from '../policy/hf/load-hf-model.ts';
import { attachLora } from '../policy/hf/lora/attach-lora.ts';
import { initLoraAdapters } from '../policy/hf/lora/lora-adapters.ts';
import { loraConfig } from '../policy/hf/lora/lora-config.ts';
import type { HfCausalLm } from '../policy/hf/causal-lm.ts';
import { hfSequenceScores } from '../policy/hf/train/sequence-scores.ts';
import { mulberry32 } from '../policy/rng.ts';
import { writeRandomModel } from './hf-random-model.ts';

const CONFIG = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', vocab_size: 32000, hidden_size: 128, intermediate_size: 512,
  num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 4096, rms_norm_eps: 1e-6,
  rope_theta: 1000000.0, tie_word_embeddings: true, hidden_act: 'silu', use_sliding_window: false, bos_token_id: 1, eos_token_id: 2,
};
const MODES = ['plain', 'chunked', 'chunked+recompute'] as const;
type Mode = (typeof MODES)[number];
const CHUNK = 128;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** The plain path: all logits at once, as forward('all') gives them. */
function plainLoss(model: HfCausalLm, ids: Int32Array): tf.Scalar {
  const T = ids.length;
  const logits = model.forward({ tokens: ids, batch: 1, length: T, positions: Int32Array.from({ length: T }, (_, t) => t), keyMask: new Uint8Array(T).fill(1) }).logits;
  const logp = tf.logSoftmax(tf.reshape(logits, [T, model.config.vocabSize]));
  const next = tf.tensor1d(Int32Array.from({ length: T }, (_, t) => ids[(t + 1) % T]!), 'int32');
  const nll = tf.neg(tf.mean(tf.sum(tf.mul(logp, tf.oneHot(next, model.config.vocabSize)), -1)));
  const entropy = tf.mean(tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)));
  return tf.add(nll, tf.mul(0.01, entropy));
}

function ourLoss(model: HfCausalLm, ids: Int32Array, mode: Mode): tf.Scalar {
  const s = hfSequenceScores(model, tf.tensor2d(ids, [1, ids.length], 'int32'), { temperature: 1, positionChunk: CHUNK, recompute: mode === 'chunked' ? 'none' : 'layers' });
  return tf.add(tf.neg(tf.mean(s.logProbs)), tf.mul(0.01, tf.mean(s.entropy)));
}

function wasmHeapBytes(): number | undefined {
  const wasm = (tf.backend() as unknown as { wasm?: { HEAPU8?: Uint8Array } }).wasm;
  return wasm?.HEAPU8?.buffer.byteLength;
}

async function child(dir: string, mode: Mode, T: number, backend: BackendPreference): Promise<void> {
  await selectBackend(backend);
  const base = (await loadHfModel(dir)).model;
  const lora = attachLora(base, initLoraAdapters(base.config, loraConfig({ r: 8, alpha: 16 }), 1));
  const rng = mulberry32(T);
  const ids = Int32Array.from({ length: T }, () => 3 + Math.floor(rng.next() * (CONFIG.vocab_size - 3)));
  const baseline = tf.memory().numBytes;
  const start = performance.now();
  const profile = await tf.profile(() => {
    const { value, grads } = tf.variableGrads(() => (mode === 'plain' ? plainLoss(lora.withAdapters, ids) : ourLoss(lora.withAdapters, ids, mode)), lora.trainableVariables);
    value.dataSync();
    tf.dispose([value, ...Object.values(grads)]);
  });
  const seconds = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ peakBytes: profile.peakBytes, baseline, heapBytes: wasmHeapBytes(), seconds }));
}

const mib = (b: number | undefined): string => (b === undefined ? '–' : `${(b / 2 ** 20).toFixed(0)} MiB`);

async function main(): Promise<void> {
  const backend = arg('backend', 'wasm') as BackendPreference;
  if (process.argv.includes('--child')) {
    await child(arg('dir', ''), arg('mode', 'plain') as Mode, Number(arg('length', '512')), backend);
    return;
  }
  const dir = path.join(os.tmpdir(), 'actorgym-hf-score-memory');
  if (!existsSync(path.join(dir, 'model.safetensors'))) await writeRandomModel(dir, CONFIG);
  const lengths = arg('lengths', '512,2048,4096').split(',').map(Number);
  const modes = arg('modes', MODES.join(',')).split(',') as Mode[];
  const timeout = Number(arg('timeout', '300')) * 1000;
  const self = fileURLToPath(import.meta.url);
  console.log(`backend ${backend}; vocab 32000, hidden 128, 4 layers, batch 1, LoRA r 8; head chunk ${CHUNK} positions, attention block 256; tf.profile peakBytes (live tensor bytes, weights included) and wasm heap after the step`);
  console.log('| T | mode | peak tensor bytes | wasm heap | seconds |');
  console.log('|---|---|---|---|---|');
  for (const T of lengths) {
    for (const mode of modes) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', '--dir', dir, '--mode', mode, '--length', String(T), '--backend', backend], { encoding: 'utf8', timeout, maxBuffer: 1 << 26 });
      const line = run.stdout.split('\n').reverse().find((l) => l.startsWith('{'));
      if (line === undefined) {
        // The wasm module's minified source is echoed with its errors: keep the short lines.
        const lines = run.stderr.split('\n').filter((l) => l.length < 300);
        const where = /(policy\/hf\/[\w/-]+\.ts:\d+|bench\/[\w-]+\.ts:\d+)/.exec(run.stderr)?.[1];
        const error = lines.find((l) => l.startsWith('Aborted(')) ?? lines.find((l) => /Error/.test(l) && !/^\s+at /.test(l));
        const reason = error === undefined ? undefined : `${error.trim()}${where === undefined ? '' : ` at ${where}`}`;
        const why = run.error !== undefined ? `timed out after ${timeout / 1000} s` : (reason?.trim() ?? `exit ${run.status}`);
        console.log(`| ${T} | ${mode} | failed: ${why.slice(0, 160)} | | |`);
        continue;
      }
      const r = JSON.parse(line) as { peakBytes: number; baseline: number; heapBytes?: number; seconds: number };
      console.log(`| ${T} | ${mode} | ${mib(r.peakBytes)} | ${mib(r.heapBytes)} | ${r.seconds.toFixed(1)} |`);
    }
  }
}

await main();
