/**
 * Transformer throughput on the chosen tfjs backend (default wasm), printed side by side:
 *  - learner: trained tokens/s (forward + backward + Adam) for the reference step (vocab 512,
 *    d 128, 2 layers, 4 heads, ff 512, seq 128, batch 32 = 4,096 tokens) and for the default
 *    config at its full context (seq 256, batch 16), plus — in the same run, for the ratio — a
 *    straightforward tfjs implementation (one-hot embedding, autodiff matmuls with transpose
 *    flags, batched attention) of the reference step;
 *  - the same reference step through the learner's own update (bench/learner-objective-step.ts:
 *    GRPO's clipped loss, k3 KL, entropy bonus, gradient clipping, Adam, no value head) on one
 *    thread and on two (a worker takes half of it: learner/data-parallel.ts);
 *  - actor: KV-cache decode tokens/s at batch 1 and batch 64.
 * No assertions: the machine is shared; read medians and ratios from one run.
 *
 *   npx tsx bench/transformer-step.ts [--backend wasm] [--steps 5] [--no-naive] [--no-torch] [--learner-only] [--sweep]
 *
 * When /usr/bin/python3 has torch (Debian's python3-torch), bench/torch_reference.py runs right
 * after the tfjs steps: the same update (same objective, data and layout; its docstring spells
 * out both sides) at 1 thread and at all cores. Printed ratios: learner on 2 threads against
 * PyTorch's best, learner on 1 thread against PyTorch on 1. `--no-torch` skips it;
 * `--learner-only` times only the learner update and PyTorch (a short run, for repeats).
 * `--sweep` also times candidate default sizes (learner at full context, decode at batch 64).
 * The other tfjs steps (next-token loss with a value head) have no PyTorch counterpart.
 */
import * as tf from '@tensorflow/tfjs-core';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { learnerObjectiveStepMs } from './learner-objective-step.ts';
import { Transformer } from '../policy/transformer/transformer.ts';
import type { TransformerConfig } from '../policy/transformer/config.ts';
import { DEFAULT_TRANSFORMER_CONFIG } from '../policy/transformer/config.ts';
import { disposeCache } from '../policy/transformer/kv-cache.ts';
import { referenceLogProbsOf } from '../policy/transformer/reference-forward.ts';

export interface BenchTransformerStepOptions {
  readonly backend?: BackendPreference;
  /** Timed learner steps per config (after one warm-up step); the median is reported. */
  readonly steps?: number;
  /** Timed decode steps per batch size. */
  readonly decodeSteps?: number;
  /** Also time the straightforward implementation (slow: seconds per step). */
  readonly naive?: boolean;
  /** Also run bench/torch_reference.py right after, for a same-run ratio (default true: it runs when /usr/bin/python3 has torch). */
  readonly torch?: boolean;
  /** Progress lines go here (default: none). */
  readonly log?: (line: string) => void;
}

export interface BenchTransformerStepResult {
  readonly backend: string;
  /** Reference config, seq 128 × batch 32. */
  readonly trainedTokensPerSec: number;
  readonly trainedTokensPerSecDefault: number;
  readonly trainedTokensPerSecNaive: number | undefined;
  readonly decodeTokensPerSecBatch1: number;
  readonly decodeTokensPerSecBatch64: number;
  /** Prefill of 64 windows of 40–110 tokens, default model: fresh windows, and after a one-token past. */
  readonly prefillTokensPerSec: { readonly fresh: number; readonly withPast: number };
  /** The reference step through the learner's own update, on 1 and 2 learner threads. */
  readonly learnerTokensPerSec: Readonly<Record<'1' | '2', number>>;
  /** PyTorch tokens/s by thread count for the reference step, when measured. */
  readonly torchTokensPerSec: Readonly<Record<string, number>> | undefined;
  readonly stepMs: Readonly<Record<string, number[]>>;
}

export const REFERENCE_CONFIG: TransformerConfig = { vocabSize: 512, dModel: 128, nLayers: 2, nHeads: 4, dFF: 512, maxContext: 128 };

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function randomTokens(b: number, t: number, vocab: number, seed: number): tf.Tensor2D {
  return tf.randomUniform([b, t], 0, vocab, 'int32', seed) as tf.Tensor2D;
}

/** The learner's loss shape: −log-probs − 0.01·entropy + 0.5·value², over all positions. */
function loss(model: Transformer, tokens: tf.Tensor2D): tf.Scalar {
  const s = model.logProbsOf(tokens);
  return tf.addN([tf.neg(tf.mean(s.logProbs)), tf.mul(-0.01, tf.mean(s.entropy)), tf.mul(0.5, tf.mean(tf.square(s.values)))]) as tf.Scalar;
}

/** The same loss through the straightforward implementation (reference-forward.ts). */
function naiveLoss(model: Transformer, tokens: tf.Tensor2D): tf.Scalar {
  const s = referenceLogProbsOf(model.params, model.config, tokens);
  return tf.addN([tf.neg(tf.mean(s.logProbs)), tf.mul(-0.01, tf.mean(s.entropy)), tf.mul(0.5, tf.mean(tf.square(s.values)))]) as tf.Scalar;
}

/** Runs bench/torch_reference.py --json under /usr/bin/python3; undefined when torch is missing. */
function torchReference(): Record<string, number> | undefined {
  const script = fileURLToPath(new URL('./torch_reference.py', import.meta.url));
  const run = spawnSync('/usr/bin/python3', [script, '--json', '--steps', '6'], { encoding: 'utf8', timeout: 600_000 });
  const line = run.stdout?.trim().split('\n').pop() ?? '';
  try {
    return (JSON.parse(line) as { tokensPerSec: Record<string, number> }).tokensPerSec;
  } catch {
    return undefined;
  }
}

/** Milliseconds of each timed step of forward + backward + Adam. */
function timeSteps(steps: number, f: () => tf.Scalar, vars: tf.Variable[]): number[] {
  const opt = tf.train.adam(1e-4);
  const times: number[] = [];
  for (let i = 0; i <= steps; i++) {
    const t0 = performance.now();
    const l = opt.minimize(f, true, vars);
    l?.dataSync();
    l?.dispose();
    if (i > 0) times.push(performance.now() - t0);
  }
  opt.dispose();
  return times;
}

async function decodeTokensPerSec(model: Transformer, rows: number, steps: number, promptLength: number): Promise<number> {
  const prompts = Array.from({ length: rows }, (_, r) => Array.from({ length: promptLength }, (_, t) => 6 + ((r * 31 + t * 7) % 500)));
  const { caches } = await model.prefill(prompts.map(() => undefined), prompts);
  const batch = model.openDecode(caches.map((cache, i) => ({ key: String(i), cache })));
  await batch.step(prompts.map(() => 7)); // warm-up
  const t0 = performance.now();
  for (let s = 0; s < steps; s++) await batch.step(prompts.map((_, r) => 6 + ((r + s) % 500)));
  const seconds = (performance.now() - t0) / 1000;
  [...batch.close().values(), ...caches].forEach(disposeCache);
  return (rows * steps) / seconds;
}

/**
 * Prefill tokens/s for `rows` windows of 40–110 tokens (what a BabyAI turn prefills): fresh
 * windows (no past: packed, one fused attention call on wasm) and the same tokens after a
 * one-token past (the general path: padded rows, masked batched matmuls). Medians of `steps`.
 */
async function prefillTokensPerSec(model: Transformer, rows: number, steps: number): Promise<{ fresh: number; withPast: number }> {
  const prompts = Array.from({ length: rows }, (_, r) => Array.from({ length: 40 + ((r * 37) % 71) }, (_, t) => 6 + ((r * 13 + t * 7) % 500)));
  const total = prompts.reduce((a, p) => a + p.length, 0);
  const fresh: number[] = [];
  const withPast: number[] = [];
  for (let i = 0; i <= steps; i++) {
    let t0 = performance.now();
    const whole = await model.prefill(prompts.map(() => undefined), prompts);
    if (i > 0) fresh.push(performance.now() - t0);
    whole.caches.forEach(disposeCache);
    const first = await model.prefill(prompts.map(() => undefined), prompts.map((p) => p.slice(0, 1)));
    t0 = performance.now();
    const rest = await model.prefill(first.caches, prompts.map((p) => p.slice(1)));
    if (i > 0) withPast.push(performance.now() - t0);
    [...first.caches, ...rest.caches].forEach(disposeCache);
  }
  return { fresh: total / (median(fresh) / 1000), withPast: (total - rows) / (median(withPast) / 1000) };
}

export interface BenchLearnerVsTorchResult {
  readonly backend: string;
  /** The reference step through the learner's own update, on 1 and 2 learner threads. */
  readonly learnerTokensPerSec: Readonly<Record<'1' | '2', number>>;
  /** PyTorch tokens/s by thread count for the same update, when measured. */
  readonly torchTokensPerSec: Readonly<Record<string, number>> | undefined;
  readonly stepMs: Readonly<Record<'learner-1' | 'learner-2', number[]>>;
}

/** The learner's update on the reference step (1 and 2 threads), then PyTorch's same update. */
export async function benchLearnerVsTorch(opts: Pick<BenchTransformerStepOptions, 'backend' | 'steps' | 'torch' | 'log'> = {}): Promise<BenchLearnerVsTorchResult> {
  const log = opts.log ?? (() => {});
  const steps = opts.steps ?? 5;
  const backend = await selectBackend(opts.backend ?? 'wasm');
  log('learner update (learner/update.ts) on the reference step, 1 and 2 threads…');
  const stepMs = {
    'learner-1': await learnerObjectiveStepMs(REFERENCE_CONFIG, 1, steps, backend),
    'learner-2': await learnerObjectiveStepMs(REFERENCE_CONFIG, 2, steps, backend),
  };
  let torch: Record<string, number> | undefined;
  if (opts.torch !== false) {
    log('PyTorch, the same update (bench/torch_reference.py)…');
    torch = torchReference();
  }
  return {
    backend,
    learnerTokensPerSec: { '1': 4096 / (median(stepMs['learner-1']) / 1000), '2': 4096 / (median(stepMs['learner-2']) / 1000) },
    torchTokensPerSec: torch,
    stepMs,
  };
}

export async function benchTransformerStep(opts: BenchTransformerStepOptions = {}): Promise<BenchTransformerStepResult> {
  const log = opts.log ?? (() => {});
  const steps = opts.steps ?? 5;
  const backend = await selectBackend(opts.backend ?? 'wasm');
  const stepMs: Record<string, number[]> = {};

  const reference = new Transformer(REFERENCE_CONFIG, { seed: 1 });
  const refTokens = randomTokens(32, 128, 512, 2);
  log('learner, reference config (seq 128 × batch 32)…');
  stepMs['reference'] = timeSteps(steps, () => loss(reference, refTokens), Object.values(reference.params));

  let naive: number | undefined;
  if (opts.naive ?? true) {
    log('learner, straightforward implementation (slow)…');
    stepMs['naive'] = timeSteps(Math.min(steps, 2), () => naiveLoss(reference, refTokens), Object.values(reference.params));
    naive = 4096 / (median(stepMs['naive']) / 1000);
  }
  refTokens.dispose();

  const def = new Transformer({ ...DEFAULT_TRANSFORMER_CONFIG, vocabSize: 512 }, { seed: 3 });
  const defTokens = randomTokens(16, DEFAULT_TRANSFORMER_CONFIG.maxContext, 512, 4);
  log(`learner, default config (seq ${DEFAULT_TRANSFORMER_CONFIG.maxContext} × batch 16)…`);
  stepMs['default'] = timeSteps(steps, () => loss(def, defTokens), Object.values(def.params));
  defTokens.dispose();

  const learner = await benchLearnerVsTorch(opts);
  Object.assign(stepMs, learner.stepMs);

  log('decode, batch 1 and 64…');
  const decodeSteps = opts.decodeSteps ?? 24;
  const decode1 = await decodeTokensPerSec(def, 1, decodeSteps * 2, 64);
  const decode64 = await decodeTokensPerSec(def, 64, decodeSteps, 64);
  log('prefill, 64 windows of 40-110 tokens…');
  const prefill = await prefillTokensPerSec(def, 64, steps);
  reference.dispose();
  def.dispose();
  return {
    backend,
    trainedTokensPerSec: 4096 / (median(stepMs['reference']) / 1000),
    trainedTokensPerSecDefault: (16 * DEFAULT_TRANSFORMER_CONFIG.maxContext) / (median(stepMs['default']) / 1000),
    trainedTokensPerSecNaive: naive,
    learnerTokensPerSec: learner.learnerTokensPerSec,
    decodeTokensPerSecBatch1: decode1,
    decodeTokensPerSecBatch64: decode64,
    prefillTokensPerSec: prefill,
    torchTokensPerSec: learner.torchTokensPerSec,
    stepMs,
  };
}

/** Candidate default sizes (`--sweep`): learner tokens/s at full context and decode tokens/s at batch 64. */
export async function sweepConfigs(steps = 3): Promise<Array<{ label: string; params: number; train: number; decode64: number }>> {
  await selectBackend('wasm');
  const candidates: Array<[string, Partial<TransformerConfig>]> = [
    ['d 64, 2 layers, 2 heads, ff 256', { dModel: 64, nHeads: 2, dFF: 256 }],
    ['d 128, 2 layers, 4 heads, ff 512 (default)', {}],
    ['d 128, 4 layers, 4 heads, ff 512', { nLayers: 4 }],
    ['d 192, 3 layers, 6 heads, ff 768', { dModel: 192, nLayers: 3, nHeads: 6, dFF: 768 }],
  ];
  const out = [];
  for (const [label, overrides] of candidates) {
    const config = { ...DEFAULT_TRANSFORMER_CONFIG, vocabSize: 512, ...overrides };
    const model = new Transformer(config, { seed: 5 });
    const tokens = randomTokens(16, config.maxContext, 512, 6);
    const ms = median(timeSteps(steps, () => loss(model, tokens), Object.values(model.params)));
    tokens.dispose();
    const decode64 = await decodeTokensPerSec(model, 64, 16, 64);
    out.push({ label, params: model.parameterCount, train: (16 * config.maxContext) / (ms / 1000), decode64 });
    model.dispose();
  }
  return out;
}

const f = (x: number): string => Math.round(x).toLocaleString('en-US');

/** The learner-against-PyTorch rows: the ratios are 2 threads / PyTorch's best and 1 thread / PyTorch's 1 thread. */
function learnerRows(r: BenchLearnerVsTorchResult): Array<[string, string, string]> {
  const torch = r.torchTokensPerSec ?? {};
  const torchBest = Math.max(...Object.values(torch));
  const ratio = (tps: number, anchor: number | undefined, what: string): string =>
    (anchor !== undefined && Number.isFinite(anchor) ? ` · ${(tps / anchor).toFixed(2)}× ${what}` : '');
  const rows: Array<[string, string, string]> = [
    ['learner update, 1 thread (4,096 tok/step)', `${f(r.learnerTokensPerSec['1'])} tok/s`,
      `${f(median(r.stepMs['learner-1']))} ms/step${ratio(r.learnerTokensPerSec['1'], torch['1'], 'PyTorch on 1 thread')}`],
    ['learner update, 2 threads (data-parallel)', `${f(r.learnerTokensPerSec['2'])} tok/s`,
      `${f(median(r.stepMs['learner-2']))} ms/step · ×${(r.learnerTokensPerSec['2'] / r.learnerTokensPerSec['1']).toFixed(2)}${ratio(r.learnerTokensPerSec['2'], torchBest, "PyTorch's best")}`],
  ];
  for (const [threads, tps] of Object.entries(torch)) {
    rows.push([`PyTorch, the same update, ${threads} thread${threads === '1' ? '' : 's'}`, `${f(tps)} tok/s`, tps === torchBest ? "PyTorch's best" : '']);
  }
  return rows;
}

function printRows(title: string, rows: ReadonlyArray<readonly [string, string, string]>): void {
  const w0 = Math.max(...rows.map((x) => x[0].length));
  const w1 = Math.max(...rows.map((x) => x[1].length));
  console.log(title);
  for (const [a, b, c] of rows) console.log(`  ${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`);
}

const NO_TORCH = '  PyTorch: not measured (/usr/bin/python3 has no torch: apt-get install python3-torch libopenblas0-pthread)';

/** Only the learner update and PyTorch's (`--learner-only`). */
export async function runLearnerVsTorchBench(opts: Pick<BenchTransformerStepOptions, 'backend' | 'steps' | 'torch'> = {}): Promise<void> {
  const r = await benchLearnerVsTorch({ log: (line) => console.error(line), ...opts });
  printRows(`learner update on tfjs-${r.backend} against PyTorch, reference step (medians; ratios from this run)`, learnerRows(r));
  if (r.torchTokensPerSec === undefined) console.log(NO_TORCH);
}

/** Prints the table (the `run` of a bench/index.ts entry). */
export async function runTransformerStepBench(opts: BenchTransformerStepOptions = {}): Promise<void> {
  const r = await benchTransformerStep({ log: (line) => console.error(line), ...opts });
  const rows: Array<[string, string, string]> = [
    [`learner, reference (4,096 tok/step)`, `${f(r.trainedTokensPerSec)} tok/s`, `${f(median(r.stepMs['reference']!))} ms/step`],
    [`learner, default ctx ${DEFAULT_TRANSFORMER_CONFIG.maxContext} (4,096 tok/step)`, `${f(r.trainedTokensPerSecDefault)} tok/s`, `${f(median(r.stepMs['default']!))} ms/step`],
  ];
  if (r.trainedTokensPerSecNaive !== undefined) {
    rows.push(['learner, reference, straightforward tfjs', `${f(r.trainedTokensPerSecNaive)} tok/s`,
      `×${(r.trainedTokensPerSec / r.trainedTokensPerSecNaive).toFixed(1)} faster with custom ops`]);
  }
  rows.push(...learnerRows({
    backend: r.backend,
    learnerTokensPerSec: r.learnerTokensPerSec,
    torchTokensPerSec: r.torchTokensPerSec,
    stepMs: { 'learner-1': r.stepMs['learner-1']!, 'learner-2': r.stepMs['learner-2']! },
  }));
  rows.push(
    ['decode, batch 1', `${f(r.decodeTokensPerSecBatch1)} tok/s`, ''],
    ['decode, batch 64', `${f(r.decodeTokensPerSecBatch64)} tok/s`, `×${(r.decodeTokensPerSecBatch64 / r.decodeTokensPerSecBatch1).toFixed(1)} over batch 1`],
    ['prefill, 64 fresh windows (40-110 tokens)', `${f(r.prefillTokensPerSec.fresh)} tok/s`,
      `×${(r.prefillTokensPerSec.fresh / r.prefillTokensPerSec.withPast).toFixed(2)} over the same after a 1-token past`],
    ['prefill, the same after a 1-token past', `${f(r.prefillTokensPerSec.withPast)} tok/s`, 'padded rows, general path'],
  );
  printRows(`transformer on tfjs-${r.backend} (medians; ratios from this run)`, rows);
  if (r.torchTokensPerSec === undefined) console.log(NO_TORCH);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const backend = arg('backend') as BackendPreference | undefined;
  const steps = arg('steps');
  const common = {
    ...(backend !== undefined ? { backend } : {}),
    ...(steps !== undefined ? { steps: Number(steps) } : {}),
    torch: !process.argv.includes('--no-torch'),
  };
  if (process.argv.includes('--learner-only')) await runLearnerVsTorchBench(common);
  else await runTransformerStepBench({ ...common, naive: !process.argv.includes('--no-naive') });
  if (process.argv.includes('--sweep')) {
    console.log(`candidate sizes on wasm (context ${DEFAULT_TRANSFORMER_CONFIG.maxContext}, vocab 512)`);
    for (const r of await sweepConfigs()) {
      console.log(`  ${r.label.padEnd(44)} ${f(r.params).padStart(9)} params  train ${f(r.train).padStart(6)} tok/s  decode@64 ${f(r.decode64).padStart(6)} tok/s`);
    }
  }
}
