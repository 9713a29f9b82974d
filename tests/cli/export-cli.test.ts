/**
 * Issue 36, item 6, through the real command: `actorgym export` writes a PEFT adapter and a merged
 * model folder from a Hugging Face run's checkpoint (built here on the tiny Qwen2 fixture), and
 * refuses bad input with one error line naming what is wrong, writing nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedWeights, writeHfCheckpoint } from '../../learner/checkpoint/hf-checkpoint.ts';
import { checkpointJson, writeCheckpointFiles } from '../../learner/checkpoint/write.ts';
import { selectBackend } from '../../policy/backend.ts';
import type { HfCausalLm } from '../../policy/hf/causal-lm.ts';
import { leftPad } from '../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../policy/hf/load-hf-model.ts';
import { attachLora, type LoraCausalLm } from '../../policy/hf/lora/attach-lora.ts';
import { loadPeftAdapter } from '../../policy/hf/lora/load-peft-adapter.ts';
import { adapterValues, hfState, modelDir, optimizerBlob, trainedAdapters } from '../learner/checkpoint/hf-fixtures.ts';
import { runCli } from './run-cli.ts';

const BASE = modelDir('qwen2-tiny');
let root: string;
let lora: LoraCausalLm;
let loraRun: string;
let fullRun: string;
let transformerRun: string;
const logits = (model: HfCausalLm, ids: number[]): Float32Array => tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);
const maxDiff = (a: Float32Array, b: Float32Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

beforeAll(async () => {
  await selectBackend('wasm');
  root = mkdtempSync(path.join(tmpdir(), 'actorgym-export-cli-'));
  const model = (await loadHfModel(BASE)).model;
  lora = attachLora(model, trainedAdapters(model.config, { r: 4, alpha: 8 }, 21));
  const optimizer = await optimizerBlob(5);
  loraRun = path.join(root, 'lora-run');
  await writeHfCheckpoint(path.join(loraRun, 'checkpoint'), { state: hfState('lora', 7, BASE, model.config, lora.adapters), adapters: lora.adapters, optimizer });
  fullRun = path.join(root, 'full-run');
  await writeHfCheckpoint(path.join(fullRun, 'checkpoint'), { state: hfState('full', 2, BASE, model.config), weights: namedWeights(model.config, model.weights), optimizer });
  transformerRun = path.join(root, 'transformer-run');
  await writeCheckpointFiles(path.join(transformerRun, 'checkpoint'), { step: 1, files: [['state.json', checkpointJson({ step: 1 })]] });
});
afterAll(() => {
  lora.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('actorgym export', () => {
  it('--format peft writes an adapter folder that loadPeftAdapter reads back exactly', async () => {
    const out = path.join(root, 'peft');
    const r = await runCli(['export', '--checkpoint', loraRun, '--format', 'peft', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote PEFT adapter \(f32\) to .*peft from .*lora-run\/checkpoint \(step 7, lora run\)/);
    expect(readdirSync(out).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
    const loaded = await loadPeftAdapter(out, lora.withoutAdapters.config);
    expect(adapterValues(loaded.adapters)).toEqual(adapterValues(lora.adapters));
    loaded.adapters.dispose();
  });

  it('--format merged writes a model folder whose logits equal the adapter-attached model (≤ 1e-5)', async () => {
    const out = path.join(root, 'merged');
    const r = await runCli(['export', '--checkpoint', loraRun, '--format', 'merged', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'merged', dtype: 'f32', step: 7, mode: 'lora' });
    const merged = (await loadHfModel(out)).model;
    for (const ids of [[1, 2, 3, 4], [200, 17, 5]]) {
      expect(maxDiff(logits(lora.withAdapters, ids), logits(lora.withoutAdapters, ids))).toBeGreaterThan(0.05);
      expect(maxDiff(logits(merged, ids), logits(lora.withAdapters, ids))).toBeLessThanOrEqual(1e-5);
    }
    merged.dispose();
  });

  it('bad input is one error line naming what is wrong, and nothing is written', async () => {
    const out = path.join(root, 'never');
    const cases: [string[], RegExp][] = [
      [['--format', 'peft', '--out', out], /^actorgym: error: required option '--checkpoint <dir>' not specified/],
      [['--checkpoint', loraRun, '--format', 'zip', '--out', out], /^actorgym: error: option '--format <format>' argument 'zip' is invalid\. Allowed choices are peft, merged/],
      [['--checkpoint', transformerRun, '--format', 'merged', '--out', out], /^actorgym: error: CKPT_INCOMPATIBLE: .*transformer-run\/checkpoint is the checkpoint of actorgym's own transformer.*not a Hugging Face model/],
      [['--checkpoint', fullRun, '--format', 'peft', '--out', out], /^actorgym: error: CKPT_INCOMPATIBLE: .* is a full fine-tuning run .* use --format merged/],
      [['--checkpoint', path.join(root, 'nowhere'), '--format', 'peft', '--out', out], /^actorgym: error: CKPT_MISSING: no checkpoint at .*nowhere/],
    ];
    for (const [args, error] of cases) {
      const r = await runCli(['export', ...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(error);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('an existing --out is refused (replaced only with --force); a corrupt checkpoint names the file', async () => {
    const out = path.join(root, 'taken');
    mkdirSync(out);
    writeFileSync(path.join(out, 'notes.txt'), 'mine');
    const taken = await runCli(['export', '--checkpoint', loraRun, '--format', 'peft', '--out', out]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^actorgym: error: EXPORT_OUT_EXISTS: .*taken already exists and is not empty; choose another --out, or pass --force/);
    expect(readdirSync(out)).toEqual(['notes.txt']);
    const forced = await runCli(['export', '--checkpoint', loraRun, '--format', 'peft', '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);

    truncateSync(path.join(fullRun, 'checkpoint', 'model.safetensors'), 1000);
    const fresh = path.join(root, 'from-corrupt');
    const corrupt = await runCli(['export', '--checkpoint', fullRun, '--format', 'merged', '--out', fresh]);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(/^actorgym: error: CKPT_CORRUPT: .*full-run\/checkpoint\/model\.safetensors is truncated: 1000 bytes, the manifest says \d+/);
    expect(existsSync(fresh)).toBe(false);
    expect(readdirSync(root).filter((n) => n.includes('.partial-'))).toEqual([]);
  });
});
