/**
 * Direct access to tensor memory from a JS kernel, on the two backends that keep tensors in
 * this process's memory: wasm (views on the wasm heap) and cpu (typed arrays). Used by the
 * copy kernels (head-kernels.ts) and the layer-norm kernels (layer-norm-kernels.ts).
 */
import type * as tf from '@tensorflow/tfjs-core';

export type Floats = Float32Array;
export type Info = tf.TensorInfo;
export interface HeapIO {
  /** Allocate every output first: allocation may grow the wasm heap and detach older views. */
  alloc(shape: number[]): Info;
  view(t: Info): Floats;
  viewInt(t: Info): Int32Array;
}

export function heapIO(backend: unknown): HeapIO {
  const be = backend as {
    makeOutput?: (shape: number[], dtype: tf.DataType) => Info;
    typedArrayFromHeap?: (t: Info) => Floats;
    makeTensorInfo?: (shape: number[], dtype: tf.DataType, values?: Float32Array) => Info;
    data?: { get(id: tf.DataId): { values?: unknown } };
  };
  if (be.makeOutput && be.typedArrayFromHeap) {
    return {
      alloc: (s) => be.makeOutput!(s, 'float32'),
      view: (t) => be.typedArrayFromHeap!(t),
      viewInt: (t) => be.typedArrayFromHeap!(t) as unknown as Int32Array,
    };
  }
  if (be.makeTensorInfo && be.data) {
    return {
      alloc: (s) => be.makeTensorInfo!(s, 'float32', new Float32Array(size(s))),
      view: (t) => {
        const values = be.data!.get(t.dataId).values;
        if (!(values instanceof Float32Array)) throw new Error('actorgym kernels expect float32 tensors');
        return values;
      },
      viewInt: (t) => be.data!.get(t.dataId).values as Int32Array,
    };
  }
  throw new Error('actorgym JS kernels support only the wasm and cpu backends');
}

export const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
