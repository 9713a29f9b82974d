/**
 * The TF.js side of bench/hf-speed.ts for one model, run in a fresh process so each model starts
 * on an empty WebAssembly heap (it never shrinks). Prints one JSON line (TfjsSide).
 *
 *   npx tsx bench/hf-speed-tfjs.ts MODEL_NAME DIR [BACKEND]
 */
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';

import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { loadHfModel } from '../policy/hf/load-hf-model.ts';
import { HF_BENCH_MODELS } from './hf-configs.ts';
import { decodeTokensPerSecond, type DecodeRow } from './hf-decode.ts';
import { fullFineTuneFit } from './hf-fit.ts';
import { trainTokensPerSecond, type TrainMode } from './hf-train-step.ts';

export interface TfjsSide {
  readonly backend: string;
  /** Tokens/s, or why it was not measured (does not fit, with the arithmetic; or the error). */
  readonly train: Record<TrainMode, number | string>;
  readonly decode: DecodeRow[];
  /**
   * After decoding: MiB of tensors, and the process's RSS. On wasm the RSS also holds a second copy
   * of every weight matrix, made at its first product and kept (most likely XNNPACK's packed weights).
   */
  readonly heap: { readonly tensorsMiB: number; readonly rssMiB: number };
}

const log = (line: string): void => console.error(`[hf-speed-tfjs ${new Date().toISOString().slice(11, 19)}] ${line}`);

export async function runTfjsSide(name: string, dir: string, preference: BackendPreference): Promise<TfjsSide> {
  const spec = HF_BENCH_MODELS.find((m) => m.name === name);
  if (spec === undefined) throw new Error(`bench/hf-speed-tfjs.ts: unknown model "${name}" (known: ${HF_BENCH_MODELS.map((m) => m.name).join(', ')})`);
  const backend = await selectBackend(preference);
  const { model } = await loadHfModel(dir);
  const { batch, length } = spec.train;
  const train: Record<TrainMode, number | string> = { lora: 'not run', full: 'not run' };
  try {
    // Decoding first: a training step that runs the heap out (0.5B) must not take decoding with it.
    const decode: DecodeRow[] = [];
    for (const b of spec.decode.batches) {
      log(`${name}: decoding at batch ${b}`);
      decode.push(await decodeTokensPerSecond(model, b, spec.decode.prompt, spec.decode.newTokens, spec.repeats));
    }
    const heap = { tensorsMiB: tf.memory().numBytes / 2 ** 20, rssMiB: process.memoryUsage().rss / 2 ** 20 };
    const fit = fullFineTuneFit(model.config, batch, length, backend);
    if (!fit.fits) train.full = fit.arithmetic;
    for (const mode of ['lora', 'full'] as const) {
      if (mode === 'full' && !fit.fits) continue;
      log(`${name}: ${mode} training, ${batch} × ${length} tokens`);
      try {
        train[mode] = await trainTokensPerSecond(model, mode, batch, length, spec.repeats);
      } catch (e) {
        train[mode] = `failed: ${(e as Error).message}`;
        break; // the heap may be corrupt now
      }
    }
    return { backend, train, decode, heap };
  } finally {
    model.dispose();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [name, dir, backend] = process.argv.slice(2);
  console.log(JSON.stringify(await runTfjsSide(name!, dir!, (backend ?? 'wasm') as BackendPreference)));
}
