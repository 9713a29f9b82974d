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
