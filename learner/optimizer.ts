/**
 * Adam (tf.train.adam) over the model's parameters in a fixed order, and its state as plain
 * tensors for checkpoints.
 *
 * Order. tfjs's Adam keys its moment slots by the *position* of each gradient in the list it is
 * given, not by name; parameters here are unnamed tf variables whose generated names differ
 * between processes. So gradients always go in as an array in `paramShapes` order (the `names`
 * given here), and the saved moments are keyed by that position: a resumed run lines them up.
 *
 * Exactness. `setWeights` recomputes Adam's running β-powers as pow(β, t + 1), while an
 * uninterrupted run has multiplied them step by step in float32; the two can differ in the last
 * bit, which would make a resumed run drift. The β-powers are saved and restored verbatim.
 */
import * as tf from '@tensorflow/tfjs-core';

interface AdamInternals {
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
}

export interface OptimizerState {
  /** Adam's step count. */
  readonly iterations: number;
  readonly accBeta1: number;
  readonly accBeta2: number;
  /** First then second moments, by parameter position: `m/0003`, `v/0003`. */
  readonly moments: Record<string, tf.Tensor>;
}

export class LearnerOptimizer {
  readonly adam: tf.AdamOptimizer;

  constructor(
    readonly lr: number,
    /** Parameter names in their fixed order, and their variables. */
    readonly params: ReadonlyArray<readonly [string, tf.Variable]>,
  ) {
    this.adam = tf.train.adam(lr, 0.9, 0.999, 1e-8);
  }

  get variables(): tf.Variable[] {
    return this.params.map(([, v]) => v);
  }

  /** Applies gradients keyed by variable name (tf.variableGrads' output), in the fixed order. */
  apply(grads: tf.NamedTensorMap): void {
    const list = this.params.map(([, v]) => {
      const tensor = grads[v.name];
      if (tensor === undefined) throw new Error(`no gradient for parameter ${v.name}`);
      return { name: v.name, tensor };
    });
    this.adam.applyGradients(list);
  }

  /** The state, as tensors the caller disposes. */
  async state(): Promise<OptimizerState> {
    const weights = await this.adam.getWeights();
    const [iter, ...slots] = weights;
    const half = slots.length / 2;
    const moments: Record<string, tf.Tensor> = {};
    slots.forEach((slot, i) => {
      const key = `${i < half ? 'm' : 'v'}/${String(i % half).padStart(4, '0')}`;
      moments[key] = slot.tensor.clone();
    });
    const internals = this.adam as unknown as AdamInternals;
    const iterations = iter ? ((await iter.tensor.data())[0] ?? 0) : 0;
    // getWeights makes a fresh scalar for the step count; the moments are the live slots.
    iter?.tensor.dispose();
    return {
      iterations,
      accBeta1: (await internals.accBeta1.data())[0] ?? 0.9,
      accBeta2: (await internals.accBeta2.data())[0] ?? 0.999,
      moments,
    };
  }

  /** Restores a saved state; takes ownership of `state.moments` (they become the slots). */
  async restore(state: OptimizerState): Promise<void> {
    const keys = Object.keys(state.moments).sort();
    const m = keys.filter((k) => k.startsWith('m/'));
    const v = keys.filter((k) => k.startsWith('v/'));
    if (m.length !== v.length || (m.length !== 0 && m.length !== this.params.length)) {
      throw new Error(`optimizer state has ${m.length} first and ${v.length} second moments for ${this.params.length} parameters`);
    }
    const iter = tf.scalar(state.iterations, 'int32');
    await this.adam.setWeights([
      { name: 'iter', tensor: iter },
      ...[...m, ...v].map((k) => ({ name: k, tensor: state.moments[k]! })),
    ]);
    iter.dispose();
    // setWeights made variables of the tensors (sharing their data): drop our handles.
    for (const k of keys) state.moments[k]!.dispose();
    const internals = this.adam as unknown as AdamInternals;
    tf.tidy(() => {
      internals.accBeta1.assign(tf.scalar(state.accBeta1));
      internals.accBeta2.assign(tf.scalar(state.accBeta2));
    });
  }

  dispose(): void {
    this.adam.dispose();
  }
}
