/**
 * Issue 36: the safetensors reader — F16/BF16 conversions bit-exact against torch, header
 * validation with errors that name the file and the entry, and round trips through the writer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HfModelError } from '../../../policy/hf/hf-error.ts';
import { SafetensorsFile } from '../../../policy/hf/safetensors/safetensors-file.ts';
import { encodeSafetensors } from '../../../policy/hf/safetensors/write-safetensors.ts';
import { FIXTURES } from './fixtures.ts';

/** A file from a header object and a data section, with a correct length prefix. */
function rawFile(header: unknown, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

async function expectHfError(promise: Promise<unknown>, code: string, file: string, field: RegExp | string): Promise<void> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(HfModelError);
  const e = error as HfModelError;
  expect(e.code).toBe(code);
  expect(e.file).toBe(file);
  if (typeof field === 'string') expect(e.field).toBe(field);
  else expect(e.field).toMatch(field);
  expect(e.message).toContain(path.basename(file));
}

describe('safetensors dtypes', () => {
  it('F16 and BF16 convert to exactly the float32 torch gives, within their precision of the F32 values', async () => {
    const f = await SafetensorsFile.open(path.join(FIXTURES, 'dtypes', 'values.safetensors'));
    const f32 = await f.readFloat32('f32');
    for (const [dtype, relative] of [['f16', 2 ** -11], ['bf16', 2 ** -8]] as const) {
      expect(f.entry(dtype).dtype).toBe(dtype.toUpperCase());
      const converted = await f.readFloat32(dtype);
      const torch = await f.readFloat32(`${dtype}_as_f32`);
      expect(Array.from(converted)).toEqual(Array.from(torch)); // NaN equals NaN in toEqual
      for (let i = 0; i < f32.length; i++) {
        const x = f32[i]!;
        // Normal numbers inside the format's range only (F16 tops out at 65504, floors at 6e-5).
        const inRange = dtype === 'bf16' ? Math.abs(x) > 1e-37 : Math.abs(x) >= 6.2e-5 && Math.abs(x) <= 65504;
        if (Number.isFinite(x) && inRange) expect(Math.abs(converted[i]! - x)).toBeLessThanOrEqual(relative * Math.abs(x));
      }
    }
    await f.close();
  });

  it('the writer rounds F32 to F16 and BF16 exactly as torch does (nearest even, subnormals, overflow, NaN)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hf-dtypes-'));
    const f = await SafetensorsFile.open(path.join(FIXTURES, 'dtypes', 'values.safetensors'));
    const values = await f.readFloat32('f32');
    const file = path.join(dir, 'mine.safetensors');
    await writeFile(file, encodeSafetensors([{ name: 'f16', shape: [16], data: values, dtype: 'F16' }, { name: 'bf16', shape: [16], data: values, dtype: 'BF16' }]));
    const mine = await SafetensorsFile.open(file);
    for (const dtype of ['f16', 'bf16']) {
      expect(mine.entry(dtype).dtype).toBe(dtype.toUpperCase());
      expect(Array.from(await mine.readFloat32(dtype))).toEqual(Array.from(await f.readFloat32(`${dtype}_as_f32`)));
    }
    await Promise.all([f.close(), mine.close()]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('safetensors header validation', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'hf-safetensors-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const write = async (name: string, bytes: Uint8Array): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return file;
  };
  const eightFloats = new Uint8Array(32);

  it('round-trips tensors and metadata through the writer', async () => {
    const a = Float32Array.from([1, -2, 3.5, 0, 1e-20, -7]);
    const file = await write('ok.safetensors', encodeSafetensors([{ name: 'a', shape: [2, 3], data: a }, { name: 'b', shape: [1], data: Float32Array.of(9) }], { format: 'pt' }));
    const f = await SafetensorsFile.open(file);
    expect(f.header.dataStart % 8).toBe(0);
    expect(f.header.metadata).toEqual({ format: 'pt' });
    expect(f.entry('a').shape).toEqual([2, 3]);
    expect(Array.from(await f.readFloat32('a'))).toEqual(Array.from(a));
    expect(Array.from(await f.readFloat32('b'))).toEqual([9]);
    await f.close();
  });

  it('refuses a file too short for the length prefix', async () => {
    const file = await write('short.safetensors', new Uint8Array(5));
    await expectHfError(SafetensorsFile.open(file), 'HF_SAFETENSORS_HEADER', file, 'header length');
  });

  it('refuses a truncated header (length prefix past the end of the file)', async () => {
    const whole = rawFile({ a: { dtype: 'F32', shape: [8], data_offsets: [0, 32] } }, eightFloats);
    const file = await write('truncated.safetensors', whole.subarray(0, 20));
    await expectHfError(SafetensorsFile.open(file), 'HF_SAFETENSORS_HEADER', file, 'header length');
  });

  it('refuses a header that is not JSON', async () => {
    const bytes = rawFile({ a: 1 });
    bytes[8] = 0x5b; // '[' opens an array that never closes
    const file = await write('garbled.safetensors', bytes);
    await expectHfError(SafetensorsFile.open(file), 'HF_SAFETENSORS_HEADER', file, 'header');
  });

  it('refuses an unknown dtype, naming the tensor', async () => {
    const file = await write('dtype.safetensors', rawFile({ w: { dtype: 'F7', shape: [8], data_offsets: [0, 32] } }, eightFloats));
    await expectHfError(SafetensorsFile.open(file), 'HF_SAFETENSORS_DTYPE', file, "tensor 'w'.dtype");
  });

  it('refuses to load a known non-float dtype as weights, naming the tensor', async () => {
    const file = await write('int.safetensors', rawFile({ ids: { dtype: 'I64', shape: [4], data_offsets: [0, 32] } }, eightFloats));
    const f = await SafetensorsFile.open(file);
    await expectHfError(f.readFloat32('ids'), 'HF_SAFETENSORS_DTYPE', file, 'ids');
    await f.close();
  });

  it('refuses offsets outside the data, a byte count that does not fit the shape, and overlaps', async () => {
    const outside = await write('outside.safetensors', rawFile({ w: { dtype: 'F32', shape: [8], data_offsets: [0, 32] } }, new Uint8Array(16)));
    await expectHfError(SafetensorsFile.open(outside), 'HF_SAFETENSORS_HEADER', outside, "tensor 'w'.data_offsets");
    const size = await write('size.safetensors', rawFile({ w: { dtype: 'F32', shape: [3, 3], data_offsets: [0, 32] } }, eightFloats));
    await expectHfError(SafetensorsFile.open(size), 'HF_SAFETENSORS_HEADER', size, "tensor 'w'.data_offsets");
    const overlap = await write(
      'overlap.safetensors',
      rawFile({ a: { dtype: 'F32', shape: [4], data_offsets: [0, 16] }, b: { dtype: 'F16', shape: [4], data_offsets: [8, 16] } }, eightFloats),
    );
    await expectHfError(SafetensorsFile.open(overlap), 'HF_SAFETENSORS_HEADER', overlap, "tensor 'b'.data_offsets");
    const shape = await write('shape.safetensors', rawFile({ w: { dtype: 'F32', shape: [-1], data_offsets: [0, 32] } }, eightFloats));
    await expectHfError(SafetensorsFile.open(shape), 'HF_SAFETENSORS_HEADER', shape, "tensor 'w'.shape.0");
  });
});
