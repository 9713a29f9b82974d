/**
 * The safetensors header: 8 bytes of little-endian u64 N, then N bytes of JSON mapping each
 * tensor name to `{ dtype, shape, data_offsets: [begin, end] }` (offsets relative to the data
 * that follows the header), plus an optional `__metadata__` map of strings.
 *
 * Validated before any tensor is read: the length fits the file, the JSON is an object of that
 * form, each dtype is one the format defines, each tensor's bytes equal shape × dtype size and
 * lie inside the data, and no two tensors overlap. Every error names the file and the entry.
 */
import { z } from 'zod';

import { HfModelError } from '../hf-error.ts';
import { DTYPE_BYTES } from './dtypes.ts';
import { errorMessage } from '../../../envs/error-message.ts';

export interface TensorEntry {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Byte offsets into the data section. */
  readonly begin: number;
  readonly end: number;
}

export interface SafetensorsHeader {
  /** Bytes before the data section: 8 + N. */
  readonly dataStart: number;
  readonly tensors: ReadonlyMap<string, TensorEntry>;
  readonly metadata: Readonly<Record<string, string>>;
}

/** The safetensors reference implementation refuses headers above 100 MB. */
export const MAX_HEADER_BYTES = 100_000_000;

const entrySchema = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});
const metadataSchema = z.record(z.string(), z.string());

function headerError(file: string, field: string, detail: string): HfModelError {
  return new HfModelError('HF_SAFETENSORS_HEADER', file, field, detail);
}

/** Reads N from the first 8 bytes and checks it against the file size. */
export function headerLength(first8: Uint8Array, fileSize: number, file: string): number {
  if (fileSize < 8 || first8.length < 8) throw headerError(file, 'header length', `file is ${fileSize} bytes; a safetensors file starts with an 8-byte header length`);
  const n = new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER_BYTES)) throw headerError(file, 'header length', `${n} bytes exceeds the ${MAX_HEADER_BYTES}-byte limit`);
  if (n < 2n) throw headerError(file, 'header length', `${n} bytes is too short for a JSON object`);
  if (8n + n > BigInt(fileSize)) throw headerError(file, 'header length', `header of ${n} bytes runs past the end of the ${fileSize}-byte file (truncated?)`);
  return Number(n);
}

/** Parses and validates the JSON header; `dataLength` = file size − 8 − N. */
export function parseHeader(json: Uint8Array, dataLength: number, file: string): SafetensorsHeader {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch (e) {
    throw headerError(file, 'header', `not valid UTF-8 JSON (${errorMessage(e)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw headerError(file, 'header', 'not a JSON object');
  const tensors = new Map<string, TensorEntry>();
  let metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (name === '__metadata__') {
      const m = metadataSchema.safeParse(value);
      if (!m.success) throw headerError(file, '__metadata__', 'must map strings to strings');
      metadata = m.data;
      continue;
    }
    const e = entrySchema.safeParse(value);
    if (!e.success) {
      const issue = e.error.issues[0]!;
      throw headerError(file, `tensor '${name}'${issue.path.length > 0 ? '.' + issue.path.join('.') : ''}`, issue.message);
    }
    const { dtype, shape, data_offsets: [begin, end] } = e.data;
    const size = DTYPE_BYTES[dtype];
    if (size === undefined) {
      throw new HfModelError('HF_SAFETENSORS_DTYPE', file, `tensor '${name}'.dtype`, `unknown dtype '${dtype}' (known: ${Object.keys(DTYPE_BYTES).join(', ')})`);
    }
    if (end < begin || end > dataLength) {
      throw headerError(file, `tensor '${name}'.data_offsets`, `[${begin}, ${end}] is outside the ${dataLength}-byte data section`);
    }
    const expected = shape.reduce((a, b) => a * b, 1) * size;
    if (end - begin !== expected) {
      throw headerError(file, `tensor '${name}'.data_offsets`, `${end - begin} bytes, but shape [${shape.join(', ')}] of ${dtype} needs ${expected}`);
    }
    tensors.set(name, { name, dtype, shape, begin, end });
  }
  const sorted = [...tensors.values()].filter((t) => t.end > t.begin).sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (cur.begin < prev.end) {
      throw headerError(file, `tensor '${cur.name}'.data_offsets`, `[${cur.begin}, ${cur.end}] overlaps tensor '${prev.name}' [${prev.begin}, ${prev.end}]`);
    }
  }
  return { dataStart: 8 + json.length, tensors, metadata };
}
