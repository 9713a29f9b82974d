/**
 * One safetensors file read through a file handle: the header once at open, then each tensor's
 * byte range on demand, so loading a model never holds more than one tensor's raw bytes.
 */
import { open, type FileHandle } from 'node:fs/promises';

import { HfModelError } from '../hf-error.ts';
import { isFloatDtype, toFloat32 } from './dtypes.ts';
import { headerLength, parseHeader, type SafetensorsHeader, type TensorEntry } from './header.ts';

async function readExactly(handle: FileHandle, length: number, position: number, file: string, what: string): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new HfModelError('HF_SAFETENSORS_HEADER', file, what, `file ended after ${done} of ${length} bytes`);
    done += bytesRead;
  }
  return buffer;
}

export class SafetensorsFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    readonly header: SafetensorsHeader,
  ) {}

  /** Opens `path` and validates its header (see header.ts). */
  static async open(path: string): Promise<SafetensorsFile> {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      const first8 = size >= 8 ? await readExactly(handle, 8, 0, path, 'header length') : new Uint8Array(0);
      const n = headerLength(first8, size, path);
      const json = await readExactly(handle, n, 8, path, 'header');
      return new SafetensorsFile(path, handle, parseHeader(json, size - 8 - n, path));
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  get tensorNames(): string[] {
    return [...this.header.tensors.keys()];
  }

  entry(name: string): TensorEntry {
    const entry = this.header.tensors.get(name);
    if (entry === undefined) throw new HfModelError('HF_TENSOR_MISSING', this.path, name, 'no such tensor in this file');
    return entry;
  }

  /** The tensor's values as float32 (F32, F16 and BF16; other dtypes are refused). */
  async readFloat32(name: string): Promise<Float32Array> {
    const entry = this.entry(name);
    if (!isFloatDtype(entry.dtype)) {
      throw new HfModelError('HF_SAFETENSORS_DTYPE', this.path, name, `dtype ${entry.dtype} cannot be loaded as weights (supported: F32, F16, BF16)`);
    }
    const bytes = await readExactly(this.handle, entry.end - entry.begin, this.header.dataStart + entry.begin, this.path, name);
    return toFloat32(bytes, entry.dtype);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
