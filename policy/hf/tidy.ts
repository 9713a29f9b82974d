/**
 * `tf.tidy` for functions returning structured results (objects and arrays of tensors): tidy
 * keeps every tensor reachable from the result, but its TensorContainer type does not describe
 * interfaces, so the result's own type is restored here.
 */
import * as tf from '@tensorflow/tfjs-core';

export function tidyResult<T>(fn: () => T): T {
  return tf.tidy(fn as () => tf.TensorContainer) as T;
}
