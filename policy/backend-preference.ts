/**
 * The names `--backend` takes, apart from policy/backend.ts so that a command's options and
 * `--help` can list them without loading TensorFlow.js.
 */
export type BackendPreference = 'auto' | 'tensorflow' | 'wasm' | 'cpu' | 'node-gpu' | 'node';

export const BACKEND_PREFERENCES: readonly BackendPreference[] = ['auto', 'tensorflow', 'wasm', 'cpu', 'node-gpu', 'node'];
