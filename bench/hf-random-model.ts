/**
 * A random Hugging Face model folder for the HF benchmarks (bench/hf-forward.ts,
 * bench/hf-multiturn.ts): `config.json` as given and `model.safetensors` with normal(0, 0.02)
 * weights and unit norms, drawn from a fixed seed so every run times the same model.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseHfConfig } from '../policy/hf/config.ts';
import { writeSafetensors } from '../policy/hf/safetensors/write-safetensors.ts';
import { expectedTensors } from '../policy/hf/tensor-names.ts';
import { mulberry32 } from '../policy/rng.ts';

export async function writeRandomModel(dir: string, config: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const rng = mulberry32(36);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const tensors = expectedTensors(parseHfConfig(config)).map((t) => {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const isNorm = t.name.endsWith('norm.weight');
    return { name: t.name, shape: t.shape, data: Float32Array.from({ length: n }, () => (isNorm ? 1 : 0.02 * normal())) };
  });
  await writeFile(path.join(dir, 'config.json'), JSON.stringify(config, null, 1));
  await writeSafetensors(path.join(dir, 'model.safetensors'), tensors, { format: 'pt' });
}
