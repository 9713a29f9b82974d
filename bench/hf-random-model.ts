/**
 * A random Hugging Face model folder for the HF benchmarks (bench/hf-forward.ts,
 * bench/hf-multiturn.ts, bench/hf-speed.ts): `config.json` as given and `model.safetensors` with
 * normal(0, 0.02) weights and unit norms, drawn from a fixed seed so every run times the same model.
 *
 * Streamed tensor by tensor in chunks, so a Qwen2.5-0.5B-shaped file (494M parameters, 0.99 GB in
 * BF16) is written without holding the model in memory. A folder whose config.json and file size
 * already match is kept: the big one is written once per machine (its /tmp folder).
 */
import { open, readFile, stat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseHfConfig } from '../policy/hf/config.ts';
import { DTYPE_BYTES, fromFloat32, type FloatDtype } from '../policy/hf/safetensors/dtypes.ts';
import { expectedTensors } from '../policy/hf/tensor-names.ts';
import { mulberry32 } from '../policy/rng.ts';

const CHUNK = 1 << 20;

/** The safetensors header (padded to 8 bytes as the reference writer does) and the data size. */
function header(tensors: readonly { name: string; shape: readonly number[] }[], dtype: FloatDtype): { bytes: Uint8Array; dataBytes: number } {
  const json: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    const size = t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype]!;
    json[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + size] };
    offset += size;
  }
  let text = JSON.stringify(json);
  text += ' '.repeat((8 - ((8 + Buffer.byteLength(text)) % 8)) % 8);
  const body = new TextEncoder().encode(text);
  const bytes = new Uint8Array(8 + body.length);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(body.length), true);
  bytes.set(body, 8);
  return { bytes, dataBytes: offset };
}

async function alreadyWritten(dir: string, configText: string, fileBytes: number): Promise<boolean> {
  try {
    const [existing, file] = await Promise.all([readFile(path.join(dir, 'config.json'), 'utf8'), stat(path.join(dir, 'model.safetensors'))]);
    return existing === configText && file.size === fileBytes;
  } catch {
    return false;
  }
}

/** Writes (or keeps) the folder; `dtype` is how the file stores the weights (default F32). */
export async function writeRandomModel(dir: string, config: Record<string, unknown>, dtype: FloatDtype = 'F32'): Promise<void> {
  const tensors = expectedTensors(parseHfConfig(config));
  const { bytes, dataBytes } = header(tensors, dtype);
  const configText = JSON.stringify(config, null, 1);
  if (await alreadyWritten(dir, configText, bytes.length + dataBytes)) return;
  await mkdir(dir, { recursive: true });
  const rng = mulberry32(36);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const file = await open(path.join(dir, 'model.safetensors'), 'w');
  try {
    await file.write(bytes);
    for (const t of tensors) {
      const isNorm = t.name.endsWith('norm.weight');
      let left = t.shape.reduce((a, b) => a * b, 1);
      while (left > 0) {
        const values = new Float32Array(Math.min(CHUNK, left));
        for (let i = 0; i < values.length; i++) values[i] = isNorm ? 1 : 0.02 * normal();
        await file.write(fromFloat32(values, dtype));
        left -= values.length;
      }
    }
  } finally {
    await file.close();
  }
  // config.json last: a folder interrupted mid-write is not mistaken for a finished one.
  await writeFile(path.join(dir, 'config.json'), configText);
}
