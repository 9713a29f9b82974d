/**
 * A typed wrapper over `tf.customGrad`: the forward receives its tensor inputs as an array plus
 * the save function, and returns the value and the gradient function (one gradient per input).
 * tfjs types the callback as variadic `Tensor | GradSaveFunc`, which strict TypeScript cannot
 * check against named parameters.
 */
import * as tf from '@tensorflow/tfjs-core';

export interface CustomOpResult<T extends tf.Tensor> {
  readonly value: T;
  readonly gradFunc: (dy: T, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
}

export function customOp<T extends tf.Tensor>(
  forward: (inputs: tf.Tensor[], save: tf.GradSaveFunc) => CustomOpResult<T>,
): (...inputs: tf.Tensor[]) => T {
  const f = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const r = forward(args.slice(0, -1) as tf.Tensor[], save);
    return { value: r.value, gradFunc: r.gradFunc as (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[] };
  });
  return (...inputs: tf.Tensor[]) => f(...inputs) as T;
}
