/**
 * Rotary position embedding as transformers applies it (`rotate_half` layout: the first and
 * second halves of each head are the two coordinates of a pair), with `rope_theta` and the
 * `llama3` frequency scaling.
 *
 * The frequencies and angles are rounded to float32 at each step (Math.fround) because torch
 * computes them in float32; that keeps the angles bit-close to the reference at long positions.
 */
import * as tf from '@tensorflow/tfjs-core';

import type { HfModelConfig } from './config.ts';

const f = Math.fround;

/** inv_freq[i] = theta^(-2i/headDim), then llama3 scaling if configured ([headDim / 2]). */
export function ropeInverseFrequencies(config: Pick<HfModelConfig, 'headDim' | 'ropeTheta' | 'ropeScaling'>): Float32Array {
  const half = config.headDim / 2;
  const inv = new Float32Array(half);
  for (let i = 0; i < half; i++) inv[i] = f(1 / f(config.ropeTheta ** f((2 * i) / config.headDim)));
  const scaling = config.ropeScaling;
  if (scaling.type === 'default') return inv;
  // transformers' _compute_llama3_parameters: keep high frequencies, divide low ones by the
  // factor, interpolate smoothly between the two wavelength bounds.
  const old = scaling.originalMaxPositionEmbeddings;
  const lowFreqWavelen = old / scaling.lowFreqFactor;
  const highFreqWavelen = old / scaling.highFreqFactor;
  for (let i = 0; i < half; i++) {
    const freq = inv[i]!;
    const wavelen = f((2 * Math.PI) / freq);
    if (wavelen > lowFreqWavelen) {
      inv[i] = f(freq / scaling.factor);
    } else if (wavelen >= highFreqWavelen) {
      const smooth = f(f(f(old / wavelen) - scaling.lowFreqFactor) / (scaling.highFreqFactor - scaling.lowFreqFactor));
      inv[i] = f(f(f(f(1 - smooth) * freq) / scaling.factor) + f(smooth * freq));
    }
  }
  return inv;
}

export interface RopeTables {
  /** [B, 1, T, headDim]: cos of each angle, repeated for both halves. */
  readonly cos: tf.Tensor4D;
  /** [B, 1, T, headDim]: −sin on the first half, +sin on the second (folds rotate_half's sign). */
  readonly sin: tf.Tensor4D;
}

/** Angle tables for `positions` ([B × T], row-major). */
export function ropeTables(invFreq: Float32Array, positions: Int32Array, batch: number, length: number): RopeTables {
  const half = invFreq.length;
  const dim = 2 * half;
  const cos = new Float32Array(batch * length * dim);
  const sin = new Float32Array(batch * length * dim);
  for (let p = 0; p < batch * length; p++) {
    const position = positions[p]!;
    for (let i = 0; i < half; i++) {
      const angle = f(position * invFreq[i]!);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      cos[p * dim + i] = c;
      cos[p * dim + half + i] = c;
      sin[p * dim + i] = -s;
      sin[p * dim + half + i] = s;
    }
  }
  return { cos: tf.tensor4d(cos, [batch, 1, length, dim]), sin: tf.tensor4d(sin, [batch, 1, length, dim]) };
}

/** `x`: [B, heads, T, headDim] → x·cos + rotate_half(x)·sin. */
export function applyRope(x: tf.Tensor4D, tables: RopeTables): tf.Tensor4D {
  return tf.tidy(() => {
    const half = x.shape[3] / 2;
    const [x1, x2] = tf.split(x, [half, half], 3);
    // rotate_half(x) = [−x2, x1]; the sign lives in the sin table, so swap the halves only.
    const swapped = tf.concat([x2!, x1!], 3);
    return tf.add(tf.mul(x, tables.cos), tf.mul(swapped, tables.sin));
  });
}
