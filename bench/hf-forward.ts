/**
 * Hugging Face model throughput, TF.js against PyTorch in one run (issue 36): forward tokens/s
 * (batch × 128 tokens, logits at every position) and KV-cache decode tokens/s (16-token prompts,
 * 32 greedy tokens; decode = generate(33) − generate(1), so the prefill is not counted) at batch
 * 1, 16 and 64, for a ~9.5M-parameter Qwen2-shaped model with random weights (vocab 4096,
 * hidden 256, 8 layers, 4 heads / 2 kv heads, MLP 1024, tied embeddings). The model folder is
 * written once (config.json + model.safetensors) and both sides load the same files.
 *
 *   npx tsx bench/hf-forward.ts [--backend wasm] [--repeats 3] [--python /tmp/hfvenv/bin/python] [--threads 1]
 *
 * It also loads the folder in a fresh process and prints the load time, the bytes on the backend
 * and how much the process's peak RSS grew (tensor-by-tensor loading keeps it near the model).
 *
 * The WebAssembly backend is single-threaded under Node, so PyTorch runs with --threads 1 by
 * default (same threads). Without a Python that has torch + transformers, only the TF.js side
 * prints. No assertions: read medians and ratios from one run on a quiet machine.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';

import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import type { HfCausalLm } from '../policy/hf/causal-lm.ts';
import { generate } from '../policy/hf/generate.ts';
import { leftPad } from '../policy/hf/left-pad.ts';
import { loadHfModel } from '../policy/hf/load-hf-model.ts';
import { writeRandomModel } from './hf-random-model.ts';
import { mulberry32 } from '../policy/rng.ts';

const CONFIG = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', vocab_size: 4096, hidden_size: 256, intermediate_size: 1024,
  num_hidden_layers: 8, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 2048, rms_norm_eps: 1e-6,
  rope_theta: 1000000.0, tie_word_embeddings: true, hidden_act: 'silu', use_sliding_window: false, bos_token_id: 1, eos_token_id: 2,
};
const BATCHES = [1, 16, 64];
const LENGTH = 128;
const PROMPT = 16;
const NEW = 32;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

async function medianSeconds(fn: () => Promise<unknown>, repeats: number): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await fn();
    times.push((performance.now() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function randomIds(rows: number, length: number, vocab: number, seed: number): number[][] {
  const rng = mulberry32(seed);
  return Array.from({ length: rows }, () => Array.from({ length }, () => 3 + Math.floor(rng.next() * (vocab - 3))));
}

interface Row {
  readonly batch: number;
  readonly forwardTokensPerSecond: number;
  readonly decodeTokensPerSecond: number;
}

async function tfjsRows(model: HfCausalLm, repeats: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const batch of BATCHES) {
    const input = leftPad(randomIds(batch, LENGTH, CONFIG.vocab_size, batch));
    const forward = await medianSeconds(async () => {
      const logits = tf.tidy(() => model.forward(input).logits);
      await logits.data();
      logits.dispose();
    }, repeats);
    const requests = randomIds(batch, PROMPT, CONFIG.vocab_size, 1000 + batch).map((prompt, i) => ({ prompt, seed: i }));
    const run = (n: number) => () => generate(model, requests, { maxNewTokens: n, temperature: 0, topP: 1 });
    const first = await medianSeconds(run(1), repeats);
    const full = await medianSeconds(run(NEW + 1), repeats);
    rows.push({ batch, forwardTokensPerSecond: (batch * LENGTH) / forward, decodeTokensPerSecond: (batch * NEW) / Math.max(full - first, 1e-9) });
  }
  return rows;
}

/** Loads `dir` and prints load time, the backend's bytes and how much the process's peak RSS grew. */
async function loadOnly(dir: string): Promise<void> {
  const backend = await selectBackend(arg('backend', 'wasm') as BackendPreference);
  const rssBefore = process.resourceUsage().maxRSS;
  const start = performance.now();
  const { model, estimate } = await loadHfModel(dir);
  const seconds = (performance.now() - start) / 1000;
  const peakGrowth = (process.resourceUsage().maxRSS - rssBefore) / 1024; // maxRSS is in KiB
  console.log(
    `model: ${(estimate.parameters / 1e6).toFixed(2)}M parameters (${(estimate.parameterBytes / 2 ** 20).toFixed(1)} MiB in float32); ` +
      `load on ${backend}: ${seconds.toFixed(2)} s, backend holds ${(tf.memory().numBytes / 2 ** 20).toFixed(1)} MiB, peak RSS grew ${peakGrowth.toFixed(1)} MiB`,
  );
  model.dispose();
}

async function main(): Promise<void> {
  const loadOnlyDir = process.argv.indexOf('--load-only');
  if (loadOnlyDir >= 0) return loadOnly(process.argv[loadOnlyDir + 1]!);
  const backend = await selectBackend(arg('backend', 'wasm') as BackendPreference);
  const repeats = Number(arg('repeats', '3'));
  const threads = arg('threads', '1');
  const dir = path.join(os.tmpdir(), 'actorgym-hf-bench-qwen2-10m');
  await writeRandomModel(dir, CONFIG);
  // Load time and peak memory in a fresh process, so writing the folder does not set the peak.
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--load-only', dir, '--backend', backend], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`load-only run failed: ${child.stderr}`);
  console.log(child.stdout.trim());
  const { model } = await loadHfModel(dir);  const mine = await tfjsRows(model, repeats);
  model.dispose();

  const python = arg('python', '/tmp/hfvenv/bin/python');
  const script = fileURLToPath(new URL('../scripts/hf/torch-bench.py', import.meta.url));
  const torchRun = spawnSync(python, [script, '--model', dir, '--threads', threads, '--batches', BATCHES.join(','), '--length', String(LENGTH), '--prompt', String(PROMPT), '--new', String(NEW), '--repeats', String(repeats)], { encoding: 'utf8' });
  let theirs: { torch: string; rows: Row[] } | undefined;
  if (torchRun.status === 0) theirs = JSON.parse(torchRun.stdout.trim().split('\n').at(-1)!) as { torch: string; rows: Row[] };
  else console.log(`PyTorch side skipped (${python}: ${torchRun.error?.message ?? torchRun.stderr.trim().split('\n').at(-1)})`);

  const f = (x: number | undefined): string => (x === undefined ? '—' : Math.round(x).toLocaleString('en-US'));
  const r = (a: number, b: number | undefined): string => (b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
  console.log(`\n| batch | forward tok/s tfjs-${backend} | forward tok/s torch ${theirs?.torch ?? ''} (${threads} thr) | ratio | decode tok/s tfjs | decode tok/s torch | ratio |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of mine) {
    const t = theirs?.rows.find((x) => x.batch === row.batch);
    console.log(`| ${row.batch} | ${f(row.forwardTokensPerSecond)} | ${f(t?.forwardTokensPerSecond)} | ${r(row.forwardTokensPerSecond, t?.forwardTokensPerSecond)} | ${f(row.decodeTokensPerSecond)} | ${f(t?.decodeTokensPerSecond)} | ${r(row.decodeTokensPerSecond, t?.decodeTokensPerSecond)} |`);
  }
}

await main();
