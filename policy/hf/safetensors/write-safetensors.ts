/**
 * Writes float32 tensors as a safetensors file (header padded with spaces to a multiple of 8
 * bytes, as the reference implementation does, so the data section stays aligned). Used by the
 * tests to make copies and broken variants of the fixtures; export will build on it.
 */
import { writeFile } from 'node:fs/promises';

export interface Float32Tensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

export function encodeSafetensors(tensors: readonly Float32Tensor[], metadata?: Readonly<Record<string, string>>): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata !== undefined) header['__metadata__'] = metadata;
  let offset = 0;
  for (const t of tensors) {
    const expected = t.shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== expected) throw new Error(`${t.name}: ${t.data.length} values for shape [${t.shape.join(', ')}]`);
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const jsonBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + jsonBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(jsonBytes.length), true);
  out.set(jsonBytes, 8);
  let at = 8 + jsonBytes.length;
  for (const t of tensors) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}

export async function writeSafetensors(path: string, tensors: readonly Float32Tensor[], metadata?: Readonly<Record<string, string>>): Promise<void> {
  await writeFile(path, encodeSafetensors(tensors, metadata));
}
