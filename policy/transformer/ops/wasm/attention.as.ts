// Causal multi-head attention, forward and backward, as WebAssembly SIMD kernels that run on the
// tfjs wasm backend's own memory (AssemblyScript; built by `npm run build:wasm` into
// attention.wasm, which is committed; fused-attention.ts loads it).
//
// Why: on tfjs-wasm, attention is 768 small matmuls a half-step (each 30-90 µs, mostly the
// per-call cost of tfjs and XNNPACK's weight packing), plus copies that cut heads out and put
// them back, a softmax and the backward's elementwise ops. Here one call does all of it per
// (sequence, head), skips the masked upper triangle, and never leaves wasm.
//
// Layout. Pointers are byte offsets into the shared memory. qkv is [B*T, 3d] (columns q | k | v,
// heads contiguous in each). Each head is copied into zero-padded scratch matrices of Tp rows
// (T rounded up to 8) and dp columns (dh rounded up to 8), so every product below runs on whole
// 4-row x 8-column tiles; the padding adds zeros to every sum and is never written back.
// The module has no data segment and allocates nothing: it only touches memory it is given.

// ---- tiles: C[4 x 8] = sum over k in [k0, k1) of A[i][k] * B[k][n]  (A, B, C row-major) ----

@inline
function tile(a: usize, lda: i32, b: usize, ldb: i32, c: usize, ldc: i32, k0: i32, k1: i32): void {
  let c00 = f32x4.splat(0); let c01 = f32x4.splat(0);
  let c10 = f32x4.splat(0); let c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0); let c21 = f32x4.splat(0);
  let c30 = f32x4.splat(0); let c31 = f32x4.splat(0);
  const sa = (<usize>lda) << 2;
  for (let k = k0; k < k1; k++) {
    const bp = b + ((<usize>(k * ldb)) << 2);
    const b0 = v128.load(bp);
    const b1 = v128.load(bp, 16);
    const ap = a + ((<usize>k) << 2);
    const a0 = f32x4.splat(load<f32>(ap));
    const a1 = f32x4.splat(load<f32>(ap + sa));
    const a2 = f32x4.splat(load<f32>(ap + 2 * sa));
    const a3 = f32x4.splat(load<f32>(ap + 3 * sa));
    c00 = f32x4.add(c00, f32x4.mul(a0, b0)); c01 = f32x4.add(c01, f32x4.mul(a0, b1));
    c10 = f32x4.add(c10, f32x4.mul(a1, b0)); c11 = f32x4.add(c11, f32x4.mul(a1, b1));
    c20 = f32x4.add(c20, f32x4.mul(a2, b0)); c21 = f32x4.add(c21, f32x4.mul(a2, b1));
    c30 = f32x4.add(c30, f32x4.mul(a3, b0)); c31 = f32x4.add(c31, f32x4.mul(a3, b1));
  }
  const sc = (<usize>ldc) << 2;
  v128.store(c, c00); v128.store(c, c01, 16);
  v128.store(c + sc, c10); v128.store(c + sc, c11, 16);
  v128.store(c + 2 * sc, c20); v128.store(c + 2 * sc, c21, 16);
  v128.store(c + 3 * sc, c30); v128.store(c + 3 * sc, c31, 16);
}

const FULL: i32 = 0;
/** Only output tiles on or below the diagonal (n0 <= i0 + 3): scores and dP. */
const CAUSAL_OUT: i32 = 1;
/** A is lower-triangular (A[i][k] = 0 for k > i): P·V and dS·K. */
const LOWER_A: i32 = 2;
/** B is lower-triangular (B[k][n] = 0 for n > k): Qᵀ·dS and dOᵀ·P. */
const LOWER_B: i32 = 3;

/** C[M x N] = A[M x K] · B[K x N] with M % 4 == 0, N % 8 == 0; strides in floats. */
function gemm(a: usize, lda: i32, b: usize, ldb: i32, c: usize, ldc: i32, m: i32, n: i32, k: i32, mode: i32): void {
  for (let i0 = 0; i0 < m; i0 += 4) {
    const ai = a + ((<usize>(i0 * lda)) << 2);
    const ci = c + ((<usize>(i0 * ldc)) << 2);
    const nEnd = mode == CAUSAL_OUT ? min(n, ((i0 + 4 + 7) >> 3) << 3) : n;
    for (let n0 = 0; n0 < nEnd; n0 += 8) {
      const k0 = mode == LOWER_B ? n0 : 0;
      const k1 = mode == LOWER_A ? min(k, i0 + 4) : k;
      tile(ai, lda, b + ((<usize>n0) << 2), ldb, ci + ((<usize>n0) << 2), ldc, k0, k1);
    }
  }
}

// ---- copies between a head's columns of a [B*T, W] matrix and padded scratch ----

/** dst[t][c] = scale * x[row0 + t][col0 + c] for t < T, c < dh; zero in the padding. */
function gather(x: usize, width: i32, row0: i32, col0: i32, t: i32, dh: i32, dst: usize, tp: i32, dp: i32, scale: f32): void {
  memory.fill(dst, 0, (<usize>(tp * dp)) << 2);
  for (let r = 0; r < t; r++) {
    const src = x + ((<usize>((row0 + r) * width + col0)) << 2);
    const out = dst + ((<usize>(r * dp)) << 2);
    for (let c = 0; c < dh; c++) store<f32>(out + ((<usize>c) << 2), load<f32>(src + ((<usize>c) << 2)) * scale);
  }
}

/** dst[c][t] = scale * x[row0 + t][col0 + c]: the head transposed, [dp x Tp], zero in the padding. */
function gatherT(x: usize, width: i32, row0: i32, col0: i32, t: i32, dh: i32, dst: usize, tp: i32, dp: i32, scale: f32): void {
  memory.fill(dst, 0, (<usize>(tp * dp)) << 2);
  for (let r = 0; r < t; r++) {
    const src = x + ((<usize>((row0 + r) * width + col0)) << 2);
    for (let c = 0; c < dh; c++) store<f32>(dst + ((<usize>(c * tp + r)) << 2), load<f32>(src + ((<usize>c) << 2)) * scale);
  }
}

/** x[row0 + t][col0 + c] = src[t][c] for t < T, c < dh. */
function scatter(src: usize, dp: i32, x: usize, width: i32, row0: i32, col0: i32, t: i32, dh: i32): void {
  for (let r = 0; r < t; r++) {
    const out = x + ((<usize>((row0 + r) * width + col0)) << 2);
    const s = src + ((<usize>(r * dp)) << 2);
    for (let c = 0; c < dh; c++) store<f32>(out + ((<usize>c) << 2), load<f32>(s + ((<usize>c) << 2)));
  }
}

/** x[row0 + t][col0 + c] = srcT[c][t]: a transposed [dp x Tp] result written back as rows. */
function scatterT(srcT: usize, tp: i32, x: usize, width: i32, row0: i32, col0: i32, t: i32, dh: i32): void {
  for (let r = 0; r < t; r++) {
    const out = x + ((<usize>((row0 + r) * width + col0)) << 2);
    for (let c = 0; c < dh; c++) store<f32>(out + ((<usize>c) << 2), load<f32>(srcT + ((<usize>(c * tp + r)) << 2)));
  }
}

/** Scratch floats the kernels need (the caller allocates them): 5 head matrices and one Tp x Tp. */
export function scratchFloats(t: i32, dh: i32): i32 {
  const tp = ((t + 7) >> 3) << 3;
  const dp = ((dh + 7) >> 3) << 3;
  return 5 * tp * dp + tp * tp;
}

// ---- exp without tables (AssemblyScript's Mathf.exp reads a table from a data segment, which
// would be written into tfjs's memory): Cephes' expf, a degree-5 polynomial on the reduced
// argument, about 1 ulp on [-87, 0]; softmax only takes exp of x − max ≤ 0. ----

@inline
function exp4(x: v128): v128 {
  x = f32x4.max(x, f32x4.splat(-87.0));
  const n = f32x4.nearest(f32x4.mul(x, f32x4.splat(1.44269504088896341)));
  let r = f32x4.sub(x, f32x4.mul(n, f32x4.splat(0.693359375)));
  r = f32x4.sub(r, f32x4.mul(n, f32x4.splat(-2.12194440e-4)));
  let p = f32x4.splat(1.9875691500e-4);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.3981999507e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(8.3334519073e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(4.1665795894e-2));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.6666665459e-1));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(5.0000001201e-1));
  const y = f32x4.add(f32x4.add(f32x4.mul(f32x4.mul(p, r), r), r), f32x4.splat(1));
  const pow2n = i32x4.shl(i32x4.add(i32x4.trunc_sat_f32x4_s(n), i32x4.splat(127)), 23);
  return f32x4.mul(y, pow2n);
}

@inline
function exp1(x: f32): f32 {
  return f32x4.extract_lane(exp4(f32x4.splat(x)), 0);
}

/** Rows of P softmaxed in place over j <= i (scores above the diagonal are ignored), zero elsewhere. */
function causalSoftmax(p: usize, t: i32, tp: i32): void {
  for (let i = 0; i < tp; i++) {
    const row = p + ((<usize>(i * tp)) << 2);
    if (i >= t) {
      memory.fill(row, 0, (<usize>tp) << 2);
      continue;
    }
    let mx = load<f32>(row);
    for (let j = 1; j <= i; j++) mx = max(mx, load<f32>(row + ((<usize>j) << 2)));
    const m4 = f32x4.splat(mx);
    let s4 = f32x4.splat(0);
    let j = 0;
    for (; j + 4 <= i + 1; j += 4) {
      const at = row + ((<usize>j) << 2);
      const e = exp4(f32x4.sub(v128.load(at), m4));
      v128.store(at, e);
      s4 = f32x4.add(s4, e);
    }
    let sum: f32 = f32x4.extract_lane(s4, 0) + f32x4.extract_lane(s4, 1) + f32x4.extract_lane(s4, 2) + f32x4.extract_lane(s4, 3);
    for (; j <= i; j++) {
      const at = row + ((<usize>j) << 2);
      const e = exp1(load<f32>(at) - mx);
      store<f32>(at, e);
      sum += e;
    }
    const inv = f32x4.splat(<f32>1 / sum);
    j = 0;
    for (; j + 4 <= i + 1; j += 4) {
      const at = row + ((<usize>j) << 2);
      v128.store(at, f32x4.mul(v128.load(at), inv));
    }
    const invs: f32 = <f32>1 / sum;
    for (; j <= i; j++) store<f32>(row + ((<usize>j) << 2), load<f32>(row + ((<usize>j) << 2)) * invs);
    for (j = i + 1; j < tp; j++) store<f32>(row + ((<usize>j) << 2), 0);
  }
}

/**
 * One (sequence, head) of the forward: rows row0 … row0+t of qkv [*, 3d] → out [*, d], the
 * softmax P [Tp x Tp] left at p; q, kt, v, o are head-sized scratch blocks.
 */
@inline
function headForward(qkv: usize, out: usize, row0: i32, t: i32, h: i32, d: i32, dh: i32, dp: i32, scale: f32,
  q: usize, kt: usize, v: usize, o: usize, p: usize): void {
  const tp = ((t + 7) >> 3) << 3;
  const width = 3 * d;
  gather(qkv, width, row0, h * dh, t, dh, q, tp, dp, scale);
  gatherT(qkv, width, row0, d + h * dh, t, dh, kt, tp, dp, 1);
  gather(qkv, width, row0, 2 * d + h * dh, t, dh, v, tp, dp, 1);
  gemm(q, dp, kt, tp, p, tp, tp, tp, dp, CAUSAL_OUT);
  causalSoftmax(p, t, tp);
  gemm(p, tp, v, dp, o, dp, tp, dp, tp, LOWER_A);
  scatter(o, dp, out, d, row0, h * dh, t, dh);
}

/**
 * out[B*T, d] = per (sequence, head) softmax(scale·Q·Kᵀ + causal mask)·V; probs [B*H, Tp, Tp]
 * receives P (kept for the backward).
 */
export function forward(qkv: usize, out: usize, probs: usize, scratch: usize, batch: i32, t: i32, heads: i32, dh: i32, scale: f32): void {
  const tp = ((t + 7) >> 3) << 3;
  const dp = ((dh + 7) >> 3) << 3;
  const d = heads * dh;
  const head = (<usize>(tp * dp)) << 2;
  const q = scratch;
  const kt = q + head;
  const v = kt + head;
  const o = v + head;
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < heads; h++) {
      const p = probs + ((<usize>((b * heads + h) * tp * tp)) << 2);
      headForward(qkv, out, b * t, t, h, d, dh, dp, scale, q, kt, v, o, p);
    }
  }
}

/**
 * The forward over packed sequences of different lengths, for inference: qkv is [N, 3d] with
 * sequence b in rows start_b … start_b + lens[b] (starts are the running sum of lens), out is
 * [N, d]. No row is padding, so the projections around it run on N rows, not B·max(len); each
 * sequence's softmax lives in the scratch's Tp x Tp block (scratchFloats(max len, dh)).
 */
export function forwardPacked(qkv: usize, out: usize, lens: usize, scratch: usize, batch: i32, maxT: i32, heads: i32, dh: i32, scale: f32): void {
  const tpMax = ((maxT + 7) >> 3) << 3;
  const dp = ((dh + 7) >> 3) << 3;
  const d = heads * dh;
  const head = (<usize>(tpMax * dp)) << 2;
  const q = scratch;
  const kt = q + head;
  const v = kt + head;
  const o = v + head;
  const p = o + 2 * head;
  let row0 = 0;
  for (let b = 0; b < batch; b++) {
    const t = load<i32>(lens + ((<usize>b) << 2));
    for (let h = 0; h < heads; h++) headForward(qkv, out, row0, t, h, d, dh, dp, scale, q, kt, v, o, p);
    row0 += t;
  }
}

/**
 * dqkv[B*T, 3d] from dOut[B*T, d], the forward's qkv and P:
 *   dP = dO·Vᵀ,  dS = scale·P ⊙ (dP − rowsum(dP ⊙ P)),  dQ = dS·K,  dKᵀ = Qᵀ·dS,  dVᵀ = dOᵀ·P.
 */
export function backward(qkv: usize, probs: usize, dout: usize, dqkv: usize, scratch: usize, batch: i32, t: i32, heads: i32, dh: i32, scale: f32): void {
  const tp = ((t + 7) >> 3) << 3;
  const dp = ((dh + 7) >> 3) << 3;
  const d = heads * dh;
  const width = 3 * d;
  const head = (<usize>(tp * dp)) << 2;
  const m0 = scratch;         // dO, then K
  const m1 = m0 + head;       // Vᵀ, then Qᵀ
  const m2 = m1 + head;       // dOᵀ
  const m3 = m2 + head;       // results [Tp x dp] or [dp x Tp]
  const ds = m3 + 2 * head;   // dP, then dS [Tp x Tp]
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < heads; h++) {
      const p = probs + ((<usize>((b * heads + h) * tp * tp)) << 2);
      // dVᵀ = dOᵀ·P  (P is zero above the diagonal)
      gatherT(dout, d, b * t, h * dh, t, dh, m2, tp, dp, 1);
      gemm(m2, tp, p, tp, m3, tp, dp, tp, tp, LOWER_B);
      scatterT(m3, tp, dqkv, width, b * t, 2 * d + h * dh, t, dh);
      // dP = dO·Vᵀ on and below the diagonal
      gather(dout, d, b * t, h * dh, t, dh, m0, tp, dp, 1);
      gatherT(qkv, width, b * t, 2 * d + h * dh, t, dh, m1, tp, dp, 1);
      gemm(m0, dp, m1, tp, ds, tp, tp, tp, dp, CAUSAL_OUT);
      // dS in place of dP; zero above the diagonal and in padded rows
      for (let i = 0; i < tp; i++) {
        const prow = p + ((<usize>(i * tp)) << 2);
        const drow = ds + ((<usize>(i * tp)) << 2);
        if (i >= t) {
          memory.fill(drow, 0, (<usize>tp) << 2);
          continue;
        }
        let dot: f32 = 0;
        for (let j = 0; j <= i; j++) dot += load<f32>(drow + ((<usize>j) << 2)) * load<f32>(prow + ((<usize>j) << 2));
        for (let j = 0; j <= i; j++) {
          const at = (<usize>j) << 2;
          store<f32>(drow + at, scale * load<f32>(prow + at) * (load<f32>(drow + at) - dot));
        }
        for (let j = i + 1; j < tp; j++) store<f32>(drow + ((<usize>j) << 2), 0);
      }
      // dQ = dS·K
      gather(qkv, width, b * t, d + h * dh, t, dh, m0, tp, dp, 1);
      gemm(ds, tp, m0, dp, m3, dp, tp, dp, tp, LOWER_A);
      scatter(m3, dp, dqkv, width, b * t, h * dh, t, dh);
      // dKᵀ = Qᵀ·dS
      gatherT(qkv, width, b * t, h * dh, t, dh, m1, tp, dp, 1);
      gemm(m1, tp, ds, tp, m3, tp, dp, tp, tp, LOWER_B);
      scatterT(m3, tp, dqkv, width, b * t, d + h * dh, t, dh);
    }
  }
}
