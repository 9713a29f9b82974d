/**
 * The weights of a model folder: `model.safetensors`, or the shards that
 * `model.safetensors.index.json` lists (`weight_map`: tensor name → shard file). Each shard is
 * opened once; a name the index maps to a shard that lacks it is an error naming both.
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

import { HfModelError } from '../hf-error.ts';
import type { TensorEntry } from './header.ts';
import { SafetensorsFile } from './safetensors-file.ts';
import { errorMessage } from '../../../envs/error-message.ts';

export const SINGLE_FILE = 'model.safetensors';
export const INDEX_FILE = 'model.safetensors.index.json';

const indexSchema = z.object({
  metadata: z.record(z.string(), z.unknown()).optional(),
  weight_map: z.record(z.string(), z.string()),
});

export class WeightFiles {
  private constructor(
    /** What errors about a missing tensor name: the index or the single file. */
    readonly source: string,
    private readonly files: ReadonlyMap<string, SafetensorsFile>,
    private readonly opened: readonly SafetensorsFile[],
  ) {}

  static async open(dir: string): Promise<WeightFiles> {
    const indexPath = path.join(dir, INDEX_FILE);
    const exists = await access(indexPath).then(() => true, () => false);
    if (!exists) {
      const single = path.join(dir, SINGLE_FILE);
      const file = await SafetensorsFile.open(single);
      return new WeightFiles(single, new Map(file.tensorNames.map((n) => [n, file])), [file]);
    }
    let index: z.infer<typeof indexSchema>;
    try {
      const parsed = indexSchema.safeParse(JSON.parse(await readFile(indexPath, 'utf8')));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new HfModelError('HF_INDEX_INVALID', indexPath, issue.path.join('.') || '(root)', issue.message);
      }
      index = parsed.data;
    } catch (e) {
      if (e instanceof HfModelError) throw e;
      throw new HfModelError('HF_INDEX_INVALID', indexPath, '(file)', errorMessage(e));
    }
    const shards = new Map<string, SafetensorsFile>();
    const byName = new Map<string, SafetensorsFile>();
    try {
      for (const [name, shardName] of Object.entries(index.weight_map)) {
        if (shardName.includes('/') || shardName.includes('\\')) {
          throw new HfModelError('HF_INDEX_INVALID', indexPath, `weight_map.${name}`, `shard '${shardName}' must be a file name in the model folder`);
        }
        let shard = shards.get(shardName);
        if (shard === undefined) {
          shard = await SafetensorsFile.open(path.join(dir, shardName));
          shards.set(shardName, shard);
        }
        if (!shard.header.tensors.has(name)) {
          throw new HfModelError('HF_TENSOR_MISSING', shard.path, name, `${INDEX_FILE} maps it to this shard, which does not hold it`);
        }
        byName.set(name, shard);
      }
    } catch (e) {
      await Promise.all([...shards.values()].map((s) => s.close()));
      throw e;
    }
    return new WeightFiles(indexPath, byName, [...shards.values()]);
  }

  get names(): string[] {
    return [...this.files.keys()];
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  /** The file holding `name` and its header entry. */
  locate(name: string): { file: string; entry: TensorEntry } {
    const f = this.files.get(name);
    if (f === undefined) throw new HfModelError('HF_TENSOR_MISSING', this.source, name, 'the model needs this tensor and it is not there');
    return { file: f.path, entry: f.entry(name) };
  }

  async readFloat32(name: string): Promise<Float32Array> {
    const f = this.files.get(name);
    if (f === undefined) throw new HfModelError('HF_TENSOR_MISSING', this.source, name, 'the model needs this tensor and it is not there');
    return f.readFloat32(name);
  }

  async close(): Promise<void> {
    await Promise.all(this.opened.map((f) => f.close()));
  }
}
