/**
 * Chooses the TensorFlow.js backend, best first (shared/DESIGN.md, "Compute backends"):
 * `@tensorflow/tfjs-node-gpu` (CUDA) → `@tensorflow/tfjs-node` → WebAssembly → pure-JS CPU.
 *
 * The native packages are optional peer dependencies, loaded by dynamic import: a missing one is
 * skipped silently under 'auto', while forcing a backend that cannot load is an error that says
 * what to install. The WebAssembly binaries are located next to the installed package
 * (`setWasmPaths`), which works from any working directory.
 */
import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { BACKEND_PREFERENCES, type BackendPreference } from './backend-preference.ts';

export { BACKEND_PREFERENCES, type BackendPreference };

type Candidate = 'node-gpu' | 'node' | 'wasm' | 'cpu';

const PACKAGES: Record<'node-gpu' | 'node', string> = {
  'node-gpu': '@tensorflow/tfjs-node-gpu',
  node: '@tensorflow/tfjs-node',
};

const ORDER: Record<BackendPreference, readonly Candidate[]> = {
  auto: ['node-gpu', 'node', 'wasm', 'cpu'],
  tensorflow: ['node-gpu', 'node'],
  'node-gpu': ['node-gpu'],
  node: ['node'],
  wasm: ['wasm'],
  cpu: ['cpu'],
};

let wasmPathsSet = false;

/** Why a candidate could not be used, or the tf backend name it registered. */
async function load(candidate: Candidate): Promise<{ name: string } | { error: string }> {
  try {
    if (candidate === 'node-gpu' || candidate === 'node') {
      const pkg = PACKAGES[candidate];
      // A variable specifier: TypeScript must not require the optional package's types.
      await import(pkg);
      return { name: 'tensorflow' };
    }
    if (candidate === 'wasm') {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      if (!wasmPathsSet) {
        const entry = createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm');
        wasm.setWasmPaths(path.dirname(entry) + path.sep);
        wasmPathsSet = true;
      }
      return { name: 'wasm' };
    }
    return { name: 'cpu' };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Activates the best available backend allowed by `preference` and returns its tfjs name
 * ('tensorflow', 'wasm' or 'cpu'). Idempotent: asking again for the active backend is free.
 */
export async function selectBackend(preference: BackendPreference = 'auto'): Promise<string> {
  const order = ORDER[preference];
  if (order === undefined) {
    throw new Error(`unknown backend '${String(preference)}'; expected one of ${BACKEND_PREFERENCES.join(', ')}`);
  }
  const failures: string[] = [];
  for (const candidate of order) {
    const loaded = await load(candidate);
    if ('error' in loaded) {
      failures.push(`${candidate}: ${loaded.error}`);
      continue;
    }
    if (tf.getBackend() === loaded.name) return loaded.name;
    if (await tf.setBackend(loaded.name)) {
      await tf.ready();
      return loaded.name;
    }
    failures.push(`${candidate}: tf.setBackend('${loaded.name}') failed`);
  }
  const hint = preference === 'node-gpu' || preference === 'node' || preference === 'tensorflow'
    ? ` Install ${order.map((c) => (c === 'node-gpu' || c === 'node' ? PACKAGES[c] : c)).join(' or ')} (its install downloads libtensorflow).`
    : '';
  throw new Error(`backend '${preference}' is not available: ${failures.join('; ')}.${hint}`);
}
