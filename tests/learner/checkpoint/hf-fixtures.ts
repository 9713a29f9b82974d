/**
 * Shared by the Hugging Face checkpoint and export tests (issue 36): trained-looking LoRA adapters
 * on the tiny fixture models (B perturbed, so the update is not zero), a state.json, an optimizer
 * blob, and a way to damage a file while keeping the manifest consistent.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import type { HfCheckpointState, HfTrainingMode } from '../../../learner/checkpoint/hf-checkpoint.ts';
import type { HfModelConfig } from '../../../policy/hf/config.ts';
import { initLoraAdapters, type LoraAdapters } from '../../../policy/hf/lora/lora-adapters.ts';
import { loraConfig, type LoraOptions } from '../../../policy/hf/lora/lora-config.ts';
import { countParameters } from '../../../policy/hf/memory-estimate.ts';
import { mulberry32 } from '../../../policy/rng.ts';
import { encodeWeights } from '../../../policy/transformer/weights-io.ts';
import { findPython, type FoundPython } from '../../support/find-python.ts';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/hf');
export const modelDir = (name: string): string => path.join(FIXTURES, name);

/** Fresh adapters (peft's initialisation) with B set to seeded values of about ±`size`. */
export function trainedAdapters(config: HfModelConfig, options: LoraOptions, seed: number, size = 0.2): LoraAdapters {
  const adapters = initLoraAdapters(config, loraConfig(options), seed);
  const rng = mulberry32(seed + 1);
  for (const { b } of adapters.pairs) {
    const values = new Float32Array(b.size);
    for (let i = 0; i < values.length; i++) values[i] = (2 * rng.next() - 1) * size;
    const t = tf.tensor2d(values, b.shape);
    b.assign(t);
    t.dispose();
  }
  return adapters;
}

export function hfState(mode: HfTrainingMode, step: number, base: string, config: HfModelConfig, lora?: LoraAdapters): HfCheckpointState {
  return {
    step,
    policyVersion: step,
    curriculum: { completedSteps: step, horizon: 6 } as HfCheckpointState['curriculum'],
    optimizer: { iterations: step, accBeta1: 0.9 ** step, accBeta2: 0.999 ** step },
    rng: { seed: 7, derivedFrom: 'seed and step' },
    config: { env: 'babyai', steps: 10, lr: 1e-4 },
    hf: {
      base,
      mode,
      ...(lora === undefined ? {} : { lora: lora.config }),
      modelType: config.architecture,
      vocabSize: config.vocabSize,
      numParameters: countParameters(config),
    },
  };
}

/** An optimizer blob as the trainer writes one: Adam moments by parameter position. */
export async function optimizerBlob(seed: number): Promise<Uint8Array> {
  const rng = mulberry32(seed);
  const values = Float32Array.from({ length: 12 }, () => rng.next());
  const moments = { 'm/0000': tf.tensor2d(values, [3, 4]), 'v/0000': tf.tensor2d(values.map((v) => v * v), [3, 4]) };
  const blob = await encodeWeights(moments);
  tf.dispose(Object.values(moments));
  return blob;
}

/** Replaces a file of the checkpoint at `dir` and updates the manifest to match (so the damage is past the checksum). */
export function rewriteListed(dir: string, name: string, bytes: Uint8Array | string): void {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  writeFileSync(path.join(dir, name), data);
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: Record<string, { bytes: number; sha256: string }> };
  manifest.files[name] = { bytes: data.byteLength, sha256: createHash('sha256').update(data).digest('hex') };
  writeFileSync(manifestFile, JSON.stringify(manifest));
}

/** Every value of each adapter pair, A then B, for exact comparison. */
export function adapterValues(adapters: LoraAdapters): Record<string, Float32Array> {
  return Object.fromEntries(adapters.pairs.flatMap((p) => [[`${p.module.path}.A`, p.a.dataSync() as Float32Array], [`${p.module.path}.B`, p.b.dataSync() as Float32Array]]));
}

/** The first Python that imports torch, transformers, safetensors and peft, or why none does (tests/support/find-python.ts). */
export function findPeftPython(): FoundPython {
  return findPython(['torch', 'transformers', 'safetensors', 'peft']);
}
