/**
 * Tensors to and from `NamedWeights` (actors/buffer/producer.ts), the float32 copy of a policy
 * version that the learner server broadcasts to rollout workers (issue 37). Exporting copies the
 * values off the backend; loading checks every name and shape before it assigns anything, so a
 * weights frame from another model leaves the policy as it was and names what did not match.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { NamedWeights } from '../buffer/producer.ts';

/**
 * A float32 copy of `entries` as version `version`. The tensors are cloned synchronously first
 * (sharing their data), so an optimizer step that re-points a variable meanwhile cannot change or
 * free what is being read.
 */
export async function toNamedWeights(version: number, entries: Iterable<readonly [string, tf.Tensor]>): Promise<NamedWeights> {
  const held = [...entries].map(([name, tensor]) => [name, tf.clone(tensor)] as const);
  try {
    const tensors: { name: string; shape: number[]; data: Float32Array }[] = [];
    for (const [name, tensor] of held) {
      const values = await tensor.data();
      tensors.push({ name, shape: [...tensor.shape], data: Float32Array.from(values as ArrayLike<number>) });
    }
    return { version, tensors };
  } finally {
    tf.dispose(held.map(([, tensor]) => tensor));
  }
}

/**
 * Assigns `weights` to `variables` by name: every variable must get a tensor of its shape, and
 * every tensor must name a variable. Throws, naming the first mismatch, before assigning any.
 */
export function assignNamedWeights(variables: ReadonlyMap<string, tf.Variable>, weights: NamedWeights): void {
  const byName = new Map(weights.tensors.map((t) => [t.name, t]));
  for (const t of weights.tensors) {
    if (!variables.has(t.name)) throw new Error(`weights of version ${weights.version}: ${t.name} is not a weight of this policy`);
  }
  for (const [name, v] of variables) {
    const t = byName.get(name);
    if (t === undefined) throw new Error(`weights of version ${weights.version}: ${name} is missing`);
    if (t.shape.join(',') !== v.shape.join(',')) throw new Error(`weights of version ${weights.version}: ${name} is [${t.shape.join(', ')}], the policy's [${v.shape.join(', ')}]`);
  }
  for (const [name, v] of variables) {
    const t = byName.get(name)!;
    tf.tidy(() => v.assign(tf.tensor(t.data, [...t.shape], 'float32')));
  }
}

/** The weights as tensors by name (the caller disposes them). */
export function namedTensors(weights: NamedWeights): Record<string, tf.Tensor> {
  const out: Record<string, tf.Tensor> = {};
  for (const t of weights.tensors) out[t.name] = tf.tensor(t.data, [...t.shape], 'float32');
  return out;
}
