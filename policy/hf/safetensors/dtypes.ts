/**
 * safetensors dtypes: the byte size of each one the format defines (to validate a header), and
 * conversion to float32 for the three that model weights come in (F32, F16, BF16).
 */
export const DTYPE_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  F64: 8,
  I64: 8,
  U64: 8,
};

export const FLOAT_DTYPES = ['F32', 'F16', 'BF16'] as const;
export type FloatDtype = (typeof FLOAT_DTYPES)[number];

export function isFloatDtype(dtype: string): dtype is FloatDtype {
  return (FLOAT_DTYPES as readonly string[]).includes(dtype);
}

/** IEEE half → float32, exact (subnormals, ±Inf and NaN included). */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Little-endian bytes of `dtype` → float32 values (a fresh, aligned array). */
export function toFloat32(bytes: Uint8Array, dtype: FloatDtype): Float32Array {
  if (dtype === 'F32') {
    const out = new Float32Array(bytes.length / 4);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }
  const n = bytes.length / 2;
  const out = new Float32Array(n);
  if (dtype === 'BF16') {
    // bfloat16 is the top half of a float32: shift the 16 bits into place.
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) bits[i] = (bytes[2 * i]! | (bytes[2 * i + 1]! << 8)) << 16;
    return out;
  }
  for (let i = 0; i < n; i++) out[i] = halfToFloat(bytes[2 * i]! | (bytes[2 * i + 1]! << 8));
  return out;
}

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** float32 → IEEE half bits, rounding to nearest even (as torch's .to(float16) does). */
export function floatToHalf(x: number): number {
  scratch[0] = x;
  const bits = scratchBits[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200 | (mantissa >>> 13));
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    // Subnormal half: the 24-bit significand shifted down, rounded to nearest even.
    const m = mantissa | 0x800000;
    const shift = 14 - e;
    let half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to Inf).
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++;
  return sign | half;
}

/** float32 → bfloat16 bits, rounding to nearest even; NaN stays a quiet NaN. */
export function floatToBfloat16(x: number): number {
  scratch[0] = x;
  const bits = scratchBits[0]!;
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return (bits >>> 16) | 0x40;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** float32 values → little-endian bytes of `dtype`. */
export function fromFloat32(values: Float32Array, dtype: FloatDtype): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
  const convert = dtype === 'F16' ? floatToHalf : floatToBfloat16;
  const out = new Uint8Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const h = convert(values[i]!);
    out[2 * i] = h & 0xff;
    out[2 * i + 1] = h >>> 8;
  }
  return out;
}
