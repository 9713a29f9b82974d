/**
 * The model's parameters: named `tf.Variable`s in a flat record, so that saving, loading and
 * shipping weights is a walk over `Object.entries`. Names follow GPT-2's layout:
 *
 *   tok_emb [V, d]   pos_emb [C, d]
 *   h{i}.ln1.g/b [d]   h{i}.attn.qkv.w [d, 3d]  .b [3d]   h{i}.attn.out.w [d, d]  .b [d]
 *   h{i}.ln2.g/b [d]   h{i}.mlp.fc.w [d, ff]  .b [ff]     h{i}.mlp.proj.w [ff, d]  .b [d]
 *   ln_f.g/b [d]       head.w [d, V]  head.b [V]          value.w [d, 1]  value.b [1]
 *   (no head.w when `tiedEmbeddings`: the head is tok_embᵀ)
 *   copy.w [d, 1]  copy.b [1]   (only with `instructionCopy`: the gate of instruction-copy.ts)
 */
import * as tf from '@tensorflow/tfjs-core';
import '../tfjs-runtime.ts';
import type { TransformerConfig } from './config.ts';

export type TransformerParams = Record<string, tf.Variable>;

/** Name → shape for every parameter of `config`, in a stable order. */
export function paramShapes(c: TransformerConfig): Array<[string, number[]]> {
  const { vocabSize: v, dModel: d, dFF: ff, maxContext: ctx } = c;
  const shapes: Array<[string, number[]]> = [['tok_emb', [v, d]], ['pos_emb', [ctx, d]]];
  for (let i = 0; i < c.nLayers; i++) {
    shapes.push(
      [`h${i}.ln1.g`, [d]], [`h${i}.ln1.b`, [d]],
      [`h${i}.attn.qkv.w`, [d, 3 * d]], [`h${i}.attn.qkv.b`, [3 * d]],
      [`h${i}.attn.out.w`, [d, d]], [`h${i}.attn.out.b`, [d]],
      [`h${i}.ln2.g`, [d]], [`h${i}.ln2.b`, [d]],
      [`h${i}.mlp.fc.w`, [d, ff]], [`h${i}.mlp.fc.b`, [ff]],
      [`h${i}.mlp.proj.w`, [ff, d]], [`h${i}.mlp.proj.b`, [d]],
    );
  }
  shapes.push(['ln_f.g', [d]], ['ln_f.b', [d]]);
  if (!c.tiedEmbeddings) shapes.push(['head.w', [d, v]]);
  shapes.push(['head.b', [v]], ['value.w', [d, 1]], ['value.b', [1]]);
  if (c.instructionCopy) shapes.push(['copy.w', [d, 1]], ['copy.b', [1]]);
  return shapes;
}

/** The output projection [d, V]: `head.w`, or the transposed token embedding when tied. */
export function headWeight(p: TransformerParams, c: TransformerConfig): tf.Tensor2D {
  return c.tiedEmbeddings ? tf.transpose(param<tf.Rank.R2>(p, 'tok_emb')) : param<tf.Rank.R2>(p, 'head.w');
}

/**
 * GPT-2 initialisation, seeded: N(0, 0.02) for weights, N(0, 0.02/√(2L)) for the projections
 * that write into the residual stream (keeps its variance flat in depth), zeros for biases,
 * ones for layer-norm gains, and a zero value head (values start at 0, so early PPO value
 * losses are the returns themselves).
 */
export function initParams(c: TransformerConfig, seed = 0): TransformerParams {
  const params: TransformerParams = {};
  paramShapes(c).forEach(([name, shape], index) => {
    const init = tf.tidy(() => {
      if (name.endsWith('.g')) return tf.ones(shape);
      if (name.endsWith('.b') || name.startsWith('value.')) return tf.zeros(shape);
      const residual = name.endsWith('attn.out.w') || name.endsWith('mlp.proj.w');
      const std = residual ? 0.02 / Math.sqrt(2 * c.nLayers) : 0.02;
      return tf.randomNormal(shape, 0, std, 'float32', seed * 1_000_003 + index);
    });
    // Unnamed tf variables: tfjs names must be globally unique and two models may coexist.
    params[name] = tf.variable(init, true);
    init.dispose();
  });
  return params;
}

/** A parameter by name, with a clear error for a missing one. */
export function param<R extends tf.Rank>(params: TransformerParams, name: string): tf.Tensor<R> {
  const p = params[name];
  if (p === undefined) throw new Error(`missing transformer parameter '${name}'`);
  return p as unknown as tf.Tensor<R>;
}

/** Copies `tensors` into the variables (shapes must match); unknown or missing names throw. */
export function assignParams(params: TransformerParams, tensors: Readonly<Record<string, tf.Tensor>>): void {
  const missing = Object.keys(params).filter((name) => !(name in tensors));
  const unknown = Object.keys(tensors).filter((name) => !(name in params));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(`weights do not match the model: missing [${missing.join(', ')}], unknown [${unknown.join(', ')}]`);
  }
  for (const [name, variable] of Object.entries(params)) {
    const t = tensors[name]!;
    if (!tf.util.arraysEqual(t.shape, variable.shape)) {
      throw new Error(`weight '${name}' has shape [${t.shape.join(', ')}], expected [${variable.shape.join(', ')}]`);
    }
    // Assigning a variable its own data would free that data first (tfjs `assign` semantics).
    if (t.dataId !== variable.dataId) variable.assign(t);
  }
}

export function disposeParams(params: TransformerParams): void {
  for (const v of Object.values(params)) v.dispose();
}
