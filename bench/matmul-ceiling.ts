/**
 * The ceiling of issue 36's speed goals: plain float32 matrix products, TF.js on the chosen backend
 * (default wasm, one thread under Node) against PyTorch on one thread, side by side in one run. A
 * training step of a transformer is mostly such products, so the ratio here bounds the ratio a
 * whole step can reach on this backend (docs/hf-models.md "Speed against PyTorch").
 *
 *   npx tsx bench/matmul-ceiling.ts [--backend wasm] [--python PATH]   (npm run bench -- matmul-ceiling)
 */
import { spawnSync } from 'node:child_process';
import * as tf from '@tensorflow/tfjs-core';
import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { findPython } from './hf-torch.ts';
import { median } from './stats.ts';

/** [m, k, n]: square sizes, and the shapes of a 10M–50M model's projections over 2,048 tokens. */
const SHAPES: readonly (readonly [number, number, number])[] = [
  [512, 512, 512], [1024, 1024, 1024], [2048, 256, 256], [2048, 256, 1024], [2048, 512, 2048],
];
const RUNS = 7;

function tfjsGflops(m: number, k: number, n: number): number {
  const a = tf.randomNormal([m, k]);
  const b = tf.randomNormal([k, n]);
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = performance.now();
    const c = tf.matMul(a, b);
    c.dataSync();
    const ms = performance.now() - t0;
    c.dispose();
    if (i > 0) times.push(ms);
  }
  a.dispose();
  b.dispose();
  return (2 * m * k * n) / (median(times) / 1000) / 1e9;
}

const TORCH = `
import json, sys, time, torch
torch.set_num_threads(1)
out = []
for m, k, n in json.loads(sys.argv[1]):
    a, b = torch.randn(m, k), torch.randn(k, n)
    ts = []
    for i in range(${RUNS} + 1):
        t0 = time.perf_counter(); torch.matmul(a, b); ts.append(time.perf_counter() - t0)
    ts = sorted(ts[1:])
    out.append(2 * m * k * n / ts[len(ts) // 2] / 1e9)
print(json.dumps({"torch": torch.__version__, "gflops": out}))
`;

function torchGflops(python: string): { torch: string; gflops: number[] } | string {
  const run = spawnSync(python, ['-c', TORCH, JSON.stringify(SHAPES)], { encoding: 'utf8' });
  if (run.status !== 0) return `PyTorch side failed: ${(run.stderr ?? '').trim().split('\n').at(-1)}`;
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { torch: string; gflops: number[] };
}

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

export async function runMatmulCeilingBench(): Promise<void> {
  const backend = await selectBackend((arg('--backend') ?? 'wasm') as BackendPreference);
  const python = findPython(arg('--python'));
  const ours = SHAPES.map(([m, k, n]) => tfjsGflops(m, k, n));
  const theirs = python === undefined ? 'no Python with torch (--python, ACTORGYM_PYTHON or /tmp/hfvenv)' : torchGflops(python);
  console.log(`float32 matmul, GFLOP/s, median of ${RUNS}; TF.js ${backend} vs PyTorch, 1 thread each`);
  console.log(`${'m×k×n'.padEnd(18)}${`TF.js ${backend}`.padStart(12)}${'PyTorch'.padStart(10)}${'ratio'.padStart(8)}`);
  SHAPES.forEach(([m, k, n], i) => {
    const torch = typeof theirs === 'string' ? undefined : theirs.gflops[i];
    const cells = [ours[i]!.toFixed(1), torch === undefined ? '—' : torch.toFixed(1), torch === undefined ? '—' : `${(ours[i]! / torch).toFixed(2)}×`];
    console.log(`${`${m}×${k}×${n}`.padEnd(18)}${cells[0]!.padStart(12)}${cells[1]!.padStart(10)}${cells[2]!.padStart(8)}`);
  });
  console.log(typeof theirs === 'string' ? theirs : `PyTorch ${theirs.torch}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMatmulCeilingBench();
