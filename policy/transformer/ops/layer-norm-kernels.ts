/**
 * Layer norm forward and backward as single JS kernels over tensor memory (wasm and cpu).
 *
 * Why: built from tf ops, a layer norm is ~10 kernels forward and ~12 backward. On wasm each
 * kernel is a full pass over memory plus 20–40 µs of dispatch; in decoding, where tensors are
 * tiny, the dispatch is all there is (5 norms × 10 kernels of a ~160-kernel step). One pass
 * per row in JS does the same arithmetic (float64 accumulators for the row statistics).
 *
 *   ActorgymLayerNorm      x [N, d], g [d], b [d]  → y [N, d], x̂ [N, d], rstd [N]
 *   ActorgymLayerNormGrad  dy [N, d], x̂, rstd, g   → dx [N, d], dg [d], db [d]
 */
import * as tf from '@tensorflow/tfjs-core';
import { heapIO, type Info } from './heap-io.ts';

type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };

function forwardKernel({ inputs, backend, attrs }: KernelArgs): Info[] {
  const { eps } = attrs as unknown as { eps: number };
  const x = inputs['x']!;
  const [n = 0, d = 0] = x.shape;
  const io = heapIO(backend);
  const outs = [io.alloc([n, d]), io.alloc([n, d]), io.alloc([n])];
  const [xv, gv, bv] = [io.view(x), io.view(inputs['g']!), io.view(inputs['b']!)];
  const [yv, hv, rv] = outs.map((o) => io.view(o)) as [Float32Array, Float32Array, Float32Array];
  for (let r = 0; r < n; r++) {
    const o = r * d;
    let sum = 0;
    for (let j = 0; j < d; j++) sum += xv[o + j]!;
    const mean = sum / d;
    let sq = 0;
    for (let j = 0; j < d; j++) {
      const c = xv[o + j]! - mean;
      sq += c * c;
    }
    const rstd = 1 / Math.sqrt(sq / d + eps);
    rv[r] = rstd;
    for (let j = 0; j < d; j++) {
      const h = (xv[o + j]! - mean) * rstd;
      hv[o + j] = h;
      yv[o + j] = h * gv[j]! + bv[j]!;
    }
  }
  return outs;
}

function backwardKernel({ inputs, backend }: KernelArgs): Info[] {
  const dy = inputs['dy']!;
  const [n = 0, d = 0] = dy.shape;
  const io = heapIO(backend);
  const outs = [io.alloc([n, d]), io.alloc([d]), io.alloc([d])];
  const [dyv, hv, rv, gv] = [io.view(dy), io.view(inputs['xhat']!), io.view(inputs['rstd']!), io.view(inputs['g']!)];
  const [dxv, dgv, dbv] = outs.map((o) => io.view(o)) as [Float32Array, Float32Array, Float32Array];
  const dg = new Float64Array(d);
  const db = new Float64Array(d);
  for (let r = 0; r < n; r++) {
    const o = r * d;
    // dx = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)), with ĝ = dy ⊙ γ.
    let sumG = 0;
    let sumGH = 0;
    for (let j = 0; j < d; j++) {
      const g = dyv[o + j]!;
      const h = hv[o + j]!;
      dg[j]! += g * h;
      db[j]! += g;
      const gh = g * gv[j]!;
      sumG += gh;
      sumGH += gh * h;
    }
    const meanG = sumG / d;
    const meanGH = sumGH / d;
    const rstd = rv[r]!;
    for (let j = 0; j < d; j++) dxv[o + j] = rstd * (dyv[o + j]! * gv[j]! - meanG - hv[o + j]! * meanGH);
  }
  dgv.set(dg);
  dbv.set(db);
  return outs;
}

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  for (const backendName of ['wasm', 'cpu']) {
    for (const [kernelName, fn] of [['ActorgymLayerNorm', forwardKernel], ['ActorgymLayerNormGrad', backwardKernel]] as const) {
      if (tf.getKernel(kernelName, backendName) === undefined) {
        tf.registerKernel({ kernelName, backendName, kernelFunc: fn as unknown as tf.KernelFunc });
      }
    }
  }
}

/** y, x̂ and rstd of a layer norm over the last axis (no gradient; see layer-norm.ts). */
export function layerNormForward(x: tf.Tensor2D, g: tf.Tensor1D, b: tf.Tensor1D, eps: number): [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D] {
  register();
  return tf.engine().runKernel('ActorgymLayerNorm', { x, g, b }, { eps }) as unknown as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D];
}

/** dx, dγ, dβ of a layer norm from its saved x̂ and rstd. */
export function layerNormBackward(dy: tf.Tensor2D, xhat: tf.Tensor2D, rstd: tf.Tensor1D, g: tf.Tensor1D): [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D] {
  register();
  return tf.engine().runKernel('ActorgymLayerNormGrad', { dy, xhat, rstd, g }, {}) as unknown as [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D];
}
