/**
 * Runs the PyTorch side of bench/hf-speed.ts (scripts/hf/torch-speed-bench.py) and reads its one
 * JSON line. Python is --python, else ACTORGYM_PYTHON, else /tmp/hfvenv/bin/python; when it is
 * missing or lacks torch/transformers/peft, the caller prints the TF.js side alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { HfBenchModel } from './hf-configs.ts';
import type { LoadMeasure } from './hf-load.ts';

export interface TorchRun {
  readonly torch: string;
  readonly threads: number;
  readonly train: Partial<Record<'lora' | 'full', number>>;
  readonly decode: readonly { batch: number; decodeTokensPerSecond: number }[];
}

const SCRIPT = fileURLToPath(new URL('../scripts/hf/torch-speed-bench.py', import.meta.url));

/** The Python to use, or undefined when none is found. */
export function findPython(explicit?: string): string | undefined {
  const candidate = explicit ?? process.env['ACTORGYM_PYTHON'] ?? '/tmp/hfvenv/bin/python';
  if (explicit === undefined && process.env['ACTORGYM_PYTHON'] === undefined && !existsSync(candidate)) return undefined;
  const probe = spawnSync(candidate, ['-c', 'import torch, transformers, peft'], { encoding: 'utf8' });
  return probe.status === 0 ? candidate : undefined;
}

function runScript<T>(python: string, args: readonly string[]): T {
  const run = spawnSync(python, [SCRIPT, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (run.status !== 0) throw new Error(`scripts/hf/torch-speed-bench.py ${args.join(' ')}: exit ${run.status}: ${(run.stderr ?? run.error?.message ?? '').trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

/** Training (the given modes) and, when `decode`, decoding on `threads` CPU threads. */
export function torchRun(python: string, dir: string, model: HfBenchModel, threads: number, modes: readonly string[], decode = true): TorchRun {
  return runScript<TorchRun>(python, [
    '--model', dir, '--threads', String(threads), '--train-batch', String(model.train.batch), '--length', String(model.train.length),
    '--modes', modes.join(','), '--batches', decode ? model.decode.batches.join(',') : '', '--prompt', String(model.decode.prompt),
    '--new', String(model.decode.newTokens), '--repeats', String(model.repeats),
  ]);
}

/** from_pretrained alone in a fresh process, weights as `dtype` ('float32' or 'bfloat16'). */
export function torchLoad(python: string, dir: string, dtype: string): LoadMeasure {
  return runScript<LoadMeasure>(python, ['--model', dir, '--load', dtype]);
}
