/**
 * Issue 36, the reverse parity check: an adapter we trained (a few Adam steps, so A and B are
 * both non-zero) and exported is loaded by peft itself (scripts/hf/peft-logits.py), and peft's
 * logits equal ours (≤ 1e-4) on each tiny model.
 *
 * Runs where Python with torch, transformers, safetensors and peft is importable: $ACTORGYM_PYTHON
 * when set, else /tmp/hfvenv/bin/python, else python3 (install: scripts/hf/make-lora-fixtures.py's header).
 * Elsewhere it is skipped, saying why.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora } from '../../../policy/hf/lora/attach-lora.ts';
import { exportPeftAdapter } from '../../../policy/hf/lora/export-peft-adapter.ts';
import { initLoraAdapters } from '../../../policy/hf/lora/lora-adapters.ts';
import { loraConfig, type LoraOptions } from '../../../policy/hf/lora/lora-config.ts';
import { maxAbsDiff, modelDir, readReference } from './fixtures.ts';
import { logitsOf, nextTokenLoss, splitLogits } from './lora-fixtures.ts';
import { findPython } from '../../support/find-python.ts';

const TOLERANCE = 1e-4;
const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scripts/hf/peft-logits.py');

const { python, reason } = findPython(['torch', 'transformers', 'safetensors', 'peft']);
if (python === undefined) console.warn(`lora-peft-live.test.ts skipped: ${reason}`);

const CASES: readonly { model: string; lora: LoraOptions }[] = [
  { model: 'qwen2-tiny', lora: { r: 4, alpha: 8 } },
  { model: 'qwen3-tiny', lora: { r: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'o_proj', 'down_proj'], useRslora: true } },
  { model: 'llama3-tiny', lora: { r: 8, alpha: 4, targetModules: ['k_proj', 'gate_proj', 'up_proj'] } },
];

describe.skipIf(python === undefined)('peft loads the adapters we train and export', () => {
  let tmp: string;
  beforeAll(async () => {
    await selectBackend('wasm');
    tmp = await mkdtemp(path.join(os.tmpdir(), 'actorgym-peft-live-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  for (const { model: name, lora: options } of CASES) {
    it(`${name}: peft's logits with our exported adapter equal ours`, { timeout: 300_000 }, async () => {
      const base = (await loadHfModel(modelDir(name))).model;
      const lora = attachLora(base, initLoraAdapters(base.config, loraConfig(options), 11));
      const optimizer = tf.train.adam(0.05);
      try {
        const inputs = readReference(name).logits.inputs;
        for (let step = 0; step < 3; step++) {
          for (const ids of inputs) optimizer.minimize(() => nextTokenLoss(lora.withAdapters, ids), false, lora.trainableVariables);
        }
        for (const v of lora.trainableVariables) expect((v.dataSync() as Float32Array).some((x) => x !== 0)).toBe(true);
        const out = path.join(tmp, name);
        await exportPeftAdapter(lora.adapters, out, { baseModelNameOrPath: modelDir(name) });
        const logitsFile = path.join(tmp, `${name}.bin`);
        await promisify(execFile)(python!, [SCRIPT, '--base', modelDir(name), '--adapter', out, '--inputs', JSON.stringify(inputs), '--out', logitsFile], { timeout: 240_000 });
        const theirs = splitLogits(await readFile(logitsFile), inputs, lora.withAdapters.config.vocabSize);
        for (const [i, ids] of inputs.entries()) {
          const ours = logitsOf(lora.withAdapters, ids);
          const change = maxAbsDiff(ours, logitsOf(lora.withoutAdapters, ids));
          const diff = maxAbsDiff(ours, theirs[i]!);
          console.log(`${name} sequence ${i}: max |Δlogit| ours vs peft = ${diff.toExponential(2)} (training moved logits by up to ${change.toFixed(3)})`);
          expect(change).toBeGreaterThan(0.05);
          expect(diff).toBeLessThanOrEqual(TOLERANCE);
        }
      } finally {
        optimizer.dispose();
        lora.dispose();
      }
    });
  }
});
