/**
 * Weights as one binary blob, for checkpoints and WebSocket binary frames:
 *
 *   [u32 little-endian: manifest byte length] [manifest: UTF-8 JSON] [pad to 4] [float32 data…]
 *
 * The manifest lists `{ name, shape }` in data order; data is little-endian float32, each tensor
 * row-major. Names are the parameter names of params.ts, so a blob loads into any model of the
 * same config, and `setWeights` checks names and shapes.
 */
import * as tf from '@tensorflow/tfjs-core';
// Checkpoints are read (and their blobs checked) before any backend is chosen: the cpu backend is there.
import '../tfjs-runtime.ts';

interface ManifestEntry {
  readonly name: string;
  readonly shape: readonly number[];
}

const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** Reads every tensor (one host read each) into a blob; tensors are not disposed. */
export async function encodeWeights(tensors: Readonly<Record<string, tf.Tensor>>): Promise<Uint8Array> {
  const names = Object.keys(tensors).sort();
  const manifest: ManifestEntry[] = names.map((name) => ({ name, shape: tensors[name]!.shape }));
  const header = new TextEncoder().encode(JSON.stringify(manifest));
  const dataOffset = Math.ceil((4 + header.length) / 4) * 4;
  const total = manifest.reduce((a, m) => a + size(m.shape), 0);
  const bytes = new Uint8Array(dataOffset + 4 * total);
  new DataView(bytes.buffer).setUint32(0, header.length, true);
  bytes.set(header, 4);
  const floats = new Float32Array(bytes.buffer, dataOffset, total);
  let at = 0;
  for (const name of names) {
    const values = await tensors[name]!.data();
    floats.set(values as Float32Array, at);
    at += values.length;
  }
  return bytes;
}

/** Tensors from a blob (the caller owns and disposes them). */
export function decodeWeights(bytes: Uint8Array): Record<string, tf.Tensor> {
  if (bytes.byteLength < 4) throw new Error('weights blob too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(0, true);
  const manifest = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as ManifestEntry[];
  const dataOffset = Math.ceil((4 + headerLength) / 4) * 4;
  const total = manifest.reduce((a, m) => a + size(m.shape), 0);
  if (bytes.byteLength !== dataOffset + 4 * total) {
    throw new Error(`weights blob has ${bytes.byteLength} bytes, manifest needs ${dataOffset + 4 * total}`);
  }
  // Copy: the blob's offset within its buffer need not be 4-byte aligned.
  const floats = new Float32Array(bytes.slice(dataOffset).buffer);
  const out: Record<string, tf.Tensor> = {};
  let at = 0;
  for (const { name, shape } of manifest) {
    const n = size(shape);
    out[name] = tf.tensor(floats.subarray(at, at + n), [...shape], 'float32');
    at += n;
  }
  return out;
}
