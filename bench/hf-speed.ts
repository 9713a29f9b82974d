/**
 * Hugging Face causal LMs, TF.js against PyTorch in one run (issue 36, "Measure"): for
 * Qwen2-shaped models with random weights (bench/hf-configs.ts: ~10M, ~50M and a
 * Qwen2.5-0.5B-shaped one), written once to a temp folder that both sides load:
 *  - training step tokens/s (forward + backward + Adam, loss = mean next-token NLL of a fixed
 *    batch), LoRA rank 8 on all seven projections and full fine-tuning — goal ≥ 0.33× PyTorch;
 *  - batched KV-cache decode tokens/s against transformers' greedy generate(), prefill
 *    subtracted — goal ≥ 1×;
 *  - for the 0.5B-shaped file, load time and peak RSS growth, each side in a fresh process.
 * TF.js runs on the WebAssembly backend (one thread under Node), so the ratios are against
 * PyTorch on 1 thread (torch.set_num_threads(1)); PyTorch on 2 threads is printed for context.
 * Each model's TF.js side runs in a fresh child process, so one model's heap does not crowd the next.
 *
 *   npx tsx bench/hf-speed.ts [--full | --models qwen2-50m,qwen2.5-0.5b-shaped] [--python PATH] [--backend wasm]
 *   npm run bench -- hf        (10M only, 3–5 min)   npm run bench -- hf-full   (all three, 10–16 min on 2 cores)
 *
 * Python: --python, else ACTORGYM_PYTHON, else /tmp/hfvenv/bin/python (torch, transformers, peft);
 * without one only the TF.js side prints. No assertions: read one run on a quiet machine.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { table } from '../charts/text-table.ts';
import { parseHfConfig } from '../policy/hf/config.ts';
import { countParameters } from '../policy/hf/memory-estimate.ts';
import { HF_BENCH_MODELS, type HfBenchModel } from './hf-configs.ts';
import { fullFineTuneFit } from './hf-fit.ts';
import { tfjsLoad, type LoadMeasure } from './hf-load.ts';
import { nodeArgsFor } from './hf-node-args.ts';
import { writeRandomModel } from './hf-random-model.ts';
import type { TfjsSide } from './hf-speed-tfjs.ts';
import { findPython, torchLoad, torchRun, type TorchRun } from './hf-torch.ts';

export interface HfSpeedOptions {
  /** All three models (default: the 10M one only). */
  readonly full?: boolean;
  /** Only these models, by name (bench/hf-configs.ts); overrides `full`. */
  readonly models?: readonly string[];
  readonly python?: string;
  readonly backend?: string;
  readonly log?: (line: string) => void;
}

const SELF = fileURLToPath(import.meta.url);
const CHILD = fileURLToPath(new URL('./hf-speed-tfjs.ts', import.meta.url));

const num = (x: number | undefined): string => (x === undefined ? '—' : x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);

function tfjsChild(model: HfBenchModel, dir: string, backend: string): TfjsSide {
  const run = spawnSync(process.execPath, [...nodeArgsFor(CHILD), model.name, dir, backend], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`bench/hf-speed-tfjs.ts ${model.name}: exit ${run.status} (its stderr is above)`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as TfjsSide;
}

function describe(model: HfBenchModel): string {
  const c = model.config as Record<string, number>;
  const params = countParameters(parseHfConfig(model.config));
  return `${model.name}: ${(params / 1e6).toFixed(1)}M parameters (vocab ${c['vocab_size']}, hidden ${c['hidden_size']}, ${c['num_hidden_layers']} layers, ` +
    `${c['num_attention_heads']}/${c['num_key_value_heads']} heads, MLP ${c['intermediate_size']}, tied; ${model.dtype} file, random weights)`;
}

function printTrain(model: HfBenchModel, mine: TfjsSide, one?: TorchRun, two?: TorchRun): void {
  const { batch, length } = model.train;
  const rows = (['lora', 'full'] as const).map((mode) => {
    const t = mine.train[mode];
    const cell = typeof t === 'number' ? num(t) : t.startsWith('failed') ? 'failed' : 'does not fit';
    return [mode, cell, num(one?.train[mode]), typeof t === 'number' ? ratio(t, one?.train[mode]) : '—', num(two?.train[mode])];
  });
  console.log(`\ntraining step (forward + backward + Adam), ${batch} × ${length} tokens, loss = mean next-token NLL; goal ≥ 0.33×`);
  console.log(table([['mode', `tfjs-${mine.backend} tok/s`, 'torch 1 thr tok/s', 'ratio', 'torch 2 thr tok/s'], ...rows]));
  for (const mode of ['lora', 'full'] as const) {
    const why = mine.train[mode];
    if (typeof why === 'string') console.log(`${mode} on ${mine.backend}: ${why.startsWith('failed') ? why.slice(0, 160) : `does not fit: ${why}`}`);
  }
  const { tensorsMiB, rssMiB } = mine.heap;
  console.log(`TF.js process after decoding: tensors ${num(tensorsMiB)} MiB, RSS ${num(rssMiB)} MiB (on wasm this includes a packed copy of each weight matrix, made at its first use)`);
}

function printDecode(model: HfBenchModel, mine: TfjsSide, one?: TorchRun, two?: TorchRun): void {
  const { prompt, newTokens } = model.decode;
  const rows = mine.decode.map((row) => {
    const a = one?.decode.find((r) => r.batch === row.batch)?.decodeTokensPerSecond;
    const b = two?.decode.find((r) => r.batch === row.batch)?.decodeTokensPerSecond;
    return [String(row.batch), num(row.decodeTokensPerSecond), num(a), ratio(row.decodeTokensPerSecond, a), num(b)];
  });
  console.log(`\nKV-cache decoding, greedy, ${prompt}-token prompts, ${newTokens} new tokens (prefill subtracted); goal ≥ 1×`);
  console.log(table([['batch', `tfjs-${mine.backend} tok/s`, 'torch 1 thr tok/s', 'ratio', 'torch 2 thr tok/s'], ...rows]));
}

function printLoad(dir: string, backend: string, python: string | undefined): void {
  const rows: string[][] = [];
  const add = (side: string, m: LoadMeasure | Error): void => {
    if (m instanceof Error) rows.push([side, 'failed', m.message.slice(0, 120), '']);
    else rows.push([side, m.seconds.toFixed(2), num(m.peakRssGrowthMiB), m.heldMiB === undefined ? '' : num(m.heldMiB)]);
  };
  const attempt = (f: () => LoadMeasure): LoadMeasure | Error => {
    try {
      return f();
    } catch (e) {
      return e as Error;
    }
  };
  add(`tfjs-${backend} loadHfModel (float32)`, attempt(() => tfjsLoad(dir, backend)));
  if (python !== undefined) {
    add('transformers from_pretrained (float32)', attempt(() => torchLoad(python, dir, 'float32')));
    add('transformers from_pretrained (bfloat16, as stored)', attempt(() => torchLoad(python, dir, 'bfloat16')));
  }
  console.log('\nload of the safetensors file, each in a fresh process');
  console.log(table([['side', 'load s', 'peak RSS growth MiB', 'backend holds MiB'], ...rows]));
}

async function runModel(model: HfBenchModel, backend: string, python: string | undefined, log: (line: string) => void): Promise<void> {
  const dir = path.join(os.tmpdir(), `actorgym-hf-bench-${model.name}`);
  log(`writing (or keeping) ${dir}`);
  await writeRandomModel(dir, model.config, model.dtype);
  console.log(`\n### ${describe(model)}`);
  if (model.load) printLoad(dir, backend, python);
  log(`${model.name}: TF.js side`);
  const mine = tfjsChild(model, dir, backend);
  const fit = fullFineTuneFit(parseHfConfig(model.config), model.train.batch, model.train.length, backend);
  const modes = fit.fits ? ['lora', 'full'] : ['lora'];
  let one: TorchRun | undefined;
  let two: TorchRun | undefined;
  if (python !== undefined) {
    log(`${model.name}: PyTorch, 1 thread`);
    one = torchRun(python, dir, model, 1, modes);
    // Training only: on 2 shared cores, 2-thread decoding measures OpenMP's spinning, not PyTorch.
    log(`${model.name}: PyTorch, 2 threads (training only)`);
    two = torchRun(python, dir, model, 2, modes, false);
  }
  printTrain(model, mine, one, two);
  printDecode(model, mine, one, two);
  if (one !== undefined) console.log(`(PyTorch ${one.torch})`);
}

export async function runHfSpeedBench(options: HfSpeedOptions = {}): Promise<void> {
  const backend = options.backend ?? 'wasm';
  const log = options.log ?? ((line: string) => console.error(`[hf-speed ${new Date().toISOString().slice(11, 19)}] ${line}`));
  const python = findPython(options.python);
  if (python === undefined) console.log('PyTorch side skipped: no Python with torch, transformers and peft (--python, ACTORGYM_PYTHON or /tmp/hfvenv/bin/python)');
  console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const models = options.models !== undefined ? HF_BENCH_MODELS.filter((m) => options.models!.includes(m.name)) : options.full ? HF_BENCH_MODELS : HF_BENCH_MODELS.slice(0, 1);
  for (const model of models) await runModel(model, backend, python, log);
  console.log(`\nload average after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

if (process.argv[1] === SELF) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const python = arg('python');
  const backend = arg('backend');
  const models = arg('models')?.split(',');
  await runHfSpeedBench({
    full: process.argv.includes('--full'),
    ...(python === undefined ? {} : { python }),
    ...(backend === undefined ? {} : { backend }),
    ...(models === undefined ? {} : { models }),
  });
}
