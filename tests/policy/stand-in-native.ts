/**
 * A stand-in for `@tensorflow/tfjs-node` in tests: importing the real package registers a backend
 * named 'tensorflow' with its own kernels; this registers tfjs's cpu backend under that name with
 * a copy of the cpu kernels, and none of actorgym's custom ones (`Actorgym*`), which are
 * registered for wasm and cpu only. Code that picks a path by backend name then meets a backend
 * it has no custom kernels for, as it would with libtensorflow, without installing it.
 */
import * as tf from '@tensorflow/tfjs-core';

export const STAND_IN_NAME = 'tensorflow';

export function registerStandInNative(): void {
  if (tf.findBackendFactory(STAND_IN_NAME) !== null) return;
  const cpuFactory = tf.findBackendFactory('cpu');
  if (cpuFactory === null) throw new Error('the cpu backend is not registered');
  tf.registerBackend(STAND_IN_NAME, () => {
    const backend = cpuFactory() as tf.KernelBackend & { firstUse?: boolean };
    // The cpu backend's "install tfjs-node" banner would be printed by what stands in for tfjs-node.
    backend.firstUse = false;
    return backend;
  }, 0);
  for (const kernel of tf.getKernelsForBackend('cpu')) {
    if (kernel.kernelName.startsWith('Actorgym')) continue;
    tf.registerKernel({ ...kernel, backendName: STAND_IN_NAME });
  }
}

/**
 * An importer for `selectBackend` that finds only `present` among the backend packages; a native
 * one (tfjs-node, tfjs-node-gpu) registers the stand-in. `asked` lists every package asked for.
 */
export function standInImporter(present: readonly string[]): { importModule: (specifier: string) => Promise<unknown>; asked: string[] } {
  const asked: string[] = [];
  const importModule = async (specifier: string): Promise<unknown> => {
    asked.push(specifier);
    if (!present.includes(specifier)) throw new Error(`Cannot find package '${specifier}'`);
    if (specifier === '@tensorflow/tfjs-backend-wasm') return import('@tensorflow/tfjs-backend-wasm');
    registerStandInNative();
    return {};
  };
  return { importModule, asked };
}
