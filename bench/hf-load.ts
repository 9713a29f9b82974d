/**
 * Load time and peak RSS growth of a model folder in a fresh process, TF.js against transformers'
 * from_pretrained. Run as a script, this file is the TF.js child: it selects the backend, notes
 * the peak RSS, loads the folder with loadHfModel and prints one JSON line.
 *
 *   npx tsx bench/hf-load.ts DIR [--backend wasm]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';

import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { loadHfModel } from '../policy/hf/load-hf-model.ts';
import { nodeArgsFor } from './hf-node-args.ts';

export interface LoadMeasure {
  readonly seconds: number;
  /** Growth of the process's peak RSS during the load, MiB. */
  readonly peakRssGrowthMiB: number;
  /** Tensors on the backend after the load, MiB (TF.js only). */
  readonly heldMiB?: number;
}

const maxRssMiB = (): number => process.resourceUsage().maxRSS / 1024; // maxRSS is in KiB

async function child(dir: string, backend: BackendPreference): Promise<void> {
  await selectBackend(backend);
  const before = maxRssMiB();
  const start = performance.now();
  const { model } = await loadHfModel(dir);
  const seconds = (performance.now() - start) / 1000;
  const measure: LoadMeasure = { seconds, peakRssGrowthMiB: maxRssMiB() - before, heldMiB: tf.memory().numBytes / 2 ** 20 };
  model.dispose();
  console.log(JSON.stringify(measure));
}

/** Loads `dir` with TF.js in a fresh Node process. */
export function tfjsLoad(dir: string, backend: string): LoadMeasure {
  const run = spawnSync(process.execPath, [...nodeArgsFor(fileURLToPath(import.meta.url)), dir, '--backend', backend], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (run.status !== 0) throw new Error(`bench/hf-load.ts ${dir}: exit ${run.status}: ${run.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as LoadMeasure;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--backend');
  await child(process.argv[2]!, (i >= 0 ? process.argv[i + 1] : 'wasm') as BackendPreference);
}
