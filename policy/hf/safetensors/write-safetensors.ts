/**
 * Writes float32 tensors as a safetensors file, each stored as F32 (default), F16 or BF16
 * (rounded to nearest even, as torch converts). The header is padded with spaces to a multiple
 * of 8 bytes, as the reference implementation does, so the data section stays aligned. Used by
 * the tests to make copies and broken variants of the fixtures; export will build on it.
 */
import { writeFile } from 'node:fs/promises';

import { fromFloat32, type FloatDtype } from './dtypes.ts';

export interface Float32Tensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
  /** How the file stores it (default F32). */
  readonly dtype?: FloatDtype;
}

export function encodeSafetensors(tensors: readonly Float32Tensor[], metadata?: Readonly<Record<string, string>>): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata !== undefined) header['__metadata__'] = metadata;
  const blobs: Uint8Array[] = [];
  let offset = 0;
  for (const t of tensors) {
    const expected = t.shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== expected) throw new Error(`${t.name}: ${t.data.length} values for shape [${t.shape.join(', ')}]`);
    const dtype = t.dtype ?? 'F32';
    const bytes = fromFloat32(t.data, dtype);
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    blobs.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const jsonBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + jsonBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(jsonBytes.length), true);
  out.set(jsonBytes, 8);
  let at = 8 + jsonBytes.length;
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

export async function writeSafetensors(path: string, tensors: readonly Float32Tensor[], metadata?: Readonly<Record<string, string>>): Promise<void> {
  await writeFile(path, encodeSafetensors(tensors, metadata));
}
