/** Reads the committed reference outputs of scripts/hf/make-tiny-models.py (tests/fixtures/hf/). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hf');

/** The three tiny models: qwen2 (tied, F32), qwen3 (BF16), llama3 (2 F32 shards, llama3 RoPE). */
export const TINY_MODELS = ['qwen2-tiny', 'qwen3-tiny', 'llama3-tiny'] as const;

export interface Reference {
  readonly model: string;
  readonly vocabSize: number;
  readonly logits: { readonly file: string; readonly inputs: number[][] };
  readonly continuations: { prompt: number[]; continuation: number[]; logProbs: number[] }[];
  readonly greedy: { prompt: number[]; tokens: number[]; logProbs: number[] }[];
}

export function modelDir(name: string): string {
  return path.join(FIXTURES, name);
}

export function readReference(name: string): Reference {
  return JSON.parse(readFileSync(path.join(modelDir(name), 'reference.json'), 'utf8')) as Reference;
}

/** The reference logits, one [length × vocab] array per input sequence. */
export function readReferenceLogits(name: string): Float32Array[] {
  const ref = readReference(name);
  const bytes = readFileSync(path.join(modelDir(name), ref.logits.file));
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const out: Float32Array[] = [];
  let offset = 0;
  for (const ids of ref.logits.inputs) {
    out.push(all.subarray(offset, offset + ids.length * ref.vocabSize));
    offset += ids.length * ref.vocabSize;
  }
  if (offset !== all.length) throw new Error(`${name}: logits.bin holds ${all.length} floats, expected ${offset}`);
  return out;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}
