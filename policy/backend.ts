/**
 * Chooses the TensorFlow.js backend, best first (docs/architecture.md, "Compute backends"):
 * `@tensorflow/tfjs-node-gpu` (CUDA) → `@tensorflow/tfjs-node` → WebAssembly → pure-JS CPU.
 *
 * The native packages are optional peer dependencies, loaded by dynamic import: a missing one is
 * skipped silently under 'auto', while forcing a backend that cannot load is an error that says
 * what to install. The WebAssembly binaries are located next to the installed package
 * (`setWasmPaths`), which works from any working directory.
 */
import * as tf from '@tensorflow/tfjs-core';
import './tfjs-runtime.ts';
import { createRequire } from 'node:module';
import path from 'node:path';

import { BACKEND_PREFERENCES, type BackendPreference } from './backend-preference.ts';
import { errorMessage } from '../envs/error-message.ts';

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

const WASM_PACKAGE = '@tensorflow/tfjs-backend-wasm';

/** Loads a backend package by name: `import(specifier)` unless a test stands in for it. */
export type BackendImporter = (specifier: string) => Promise<unknown>;

export interface SelectBackendOptions {
  /**
   * How the backend packages are imported (default: dynamic `import`). A stand-in lets tests
   * exercise the fallback order and a native backend without installing libtensorflow.
   */
  readonly importModule?: BackendImporter;
}

// A variable specifier for the natives: TypeScript must not require the optional packages' types.
const importPackage: BackendImporter = (specifier) =>
  specifier === WASM_PACKAGE ? import('@tensorflow/tfjs-backend-wasm') : import(specifier);

let wasmPathsSet = false;

/** Why a candidate could not be used, or the tf backend name it registered. */
async function load(candidate: Candidate, importModule: BackendImporter): Promise<{ name: string } | { error: string }> {
  try {
    if (candidate === 'node-gpu' || candidate === 'node') {
      await importModule(PACKAGES[candidate]);
      return { name: 'tensorflow' };
    }
    if (candidate === 'wasm') {
      const wasm = (await importModule(WASM_PACKAGE)) as typeof import('@tensorflow/tfjs-backend-wasm');
      if (!wasmPathsSet) {
        const entry = createRequire(import.meta.url).resolve(WASM_PACKAGE);
        wasm.setWasmPaths(path.dirname(entry) + path.sep);
        wasmPathsSet = true;
      }
      return { name: 'wasm' };
    }
    return { name: 'cpu' };
  } catch (e) {
    return { error: errorMessage(e) };
  }
}

/**
 * Activates the best available backend allowed by `preference` and returns its tfjs name
 * ('tensorflow', 'wasm' or 'cpu'). Idempotent: asking again for the active backend is free.
 */
export async function selectBackend(preference: BackendPreference = 'auto', options: SelectBackendOptions = {}): Promise<string> {
  const order = ORDER[preference];
  if (order === undefined) {
    throw new Error(`unknown backend '${String(preference)}'; expected one of ${BACKEND_PREFERENCES.join(', ')}`);
  }
  const failures: string[] = [];
  for (const candidate of order) {
    const loaded = await load(candidate, options.importModule ?? importPackage);
    if ('error' in loaded) {
      failures.push(`${candidate}: ${loaded.error}`);
      continue;
    }
    if (tf.getBackend() === loaded.name || (await tf.setBackend(loaded.name))) {
      await tf.ready();
      if (loaded.name === 'cpu') quietCpuBanner();
      return loaded.name;
    }
    failures.push(`${candidate}: tf.setBackend('${loaded.name}') failed`);
  }
  const hint = preference === 'node-gpu' || preference === 'node' || preference === 'tensorflow'
    ? ` Install ${order.map((c) => (c === 'node-gpu' || c === 'node' ? PACKAGES[c] : c)).join(' or ')} (its install downloads libtensorflow).`
    : '';
  throw new Error(`backend '${preference}' is not available: ${failures.join('; ')}.${hint}`);
}

/**
 * tfjs's cpu backend prints a banner on its first tensor under Node ("Hi, looks like you are
 * running TensorFlow.js in Node.js. To speed things up dramatically, install our node
 * backend…"). Here cpu is a choice already made: asked for, or the last fallback once the native
 * packages and wasm failed to load. The banner is gated by the backend's own one-shot `firstUse`
 * field (tfjs-backend-cpu 4.22, backend_cpu.ts: `write`), so that is what is cleared: the only
 * other switches, the `PROD` and `IS_TEST` flags, mute every tfjs warning (a kernel registered
 * twice, a backend that failed to initialise), which are worth seeing.
 * tests/policy/backend.test.ts fails if a tfjs upgrade moves the field.
 */
function quietCpuBanner(): void {
  const cpu = tf.backend() as unknown as { firstUse?: boolean };
  if (cpu.firstUse === true) cpu.firstUse = false;
}
