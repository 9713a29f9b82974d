/**
 * Issue 36, peft format: adapters peft wrote (tests/fixtures/hf/lora/, scripts/hf/make-lora-fixtures.py)
 * load onto our models and give peft's logits (≤ 1e-4); export → import is exact; bad adapter
 * folders are refused naming the file and field; export is atomic (nothing half-written).
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { HfModelError } from '../../../policy/hf/hf-error.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora } from '../../../policy/hf/lora/attach-lora.ts';
import { exportPeftAdapter } from '../../../policy/hf/lora/export-peft-adapter.ts';
import { loadPeftAdapter } from '../../../policy/hf/lora/load-peft-adapter.ts';
import { initLoraAdapters } from '../../../policy/hf/lora/lora-adapters.ts';
import { loraConfig } from '../../../policy/hf/lora/lora-config.ts';
import { LoraError } from '../../../policy/hf/lora/lora-error.ts';
import { SafetensorsFile } from '../../../policy/hf/safetensors/safetensors-file.ts';
import { encodeSafetensors } from '../../../policy/hf/safetensors/write-safetensors.ts';
import { maxAbsDiff, modelDir } from './fixtures.ts';
import { bitIdentical, LORA_FIXTURES, logitsOf, loraDir, readLoraLogits, readLoraReference } from './lora-fixtures.ts';

const TOLERANCE = 1e-4;

async function expectError(p: Promise<unknown>): Promise<{ code: string; field: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof HfModelError || e instanceof LoraError) return { code: e.code, field: e.field, message: e.message };
    throw e;
  }
  throw new Error('expected an error');
}

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`peft adapters on ${backend}`, () => {
    beforeAll(async () => {
      await selectBackend(backend);
    });

    for (const name of LORA_FIXTURES) {
      it(`${name}: peft's adapter gives peft's logits`, async () => {
        const ref = readLoraReference(name);
        const base = (await loadHfModel(modelDir(ref.base))).model;
        const { adapters, baseModelNameOrPath } = await loadPeftAdapter(loraDir(name), base.config);
        const lora = attachLora(base, adapters);
        try {
          expect(baseModelNameOrPath).toBe(`tests/fixtures/hf/${ref.base}`);
          const expected = readLoraLogits(name);
          for (const [i, ids] of ref.logits.inputs.entries()) {
            const diff = maxAbsDiff(logitsOf(lora.withAdapters, ids), expected[i]!);
            // The adapter moves logits by up to largestChangeFromBase, so 1e-4 is a real check.
            console.log(`${backend} ${name} sequence ${i}: max |Δlogit| vs peft = ${diff.toExponential(2)} (adapter changes logits by up to ${ref.largestChangeFromBase.toFixed(2)})`);
            expect(diff).toBeLessThanOrEqual(TOLERANCE);
          }
          expect(ref.largestChangeFromBase).toBeGreaterThan(1);
        } finally {
          lora.dispose();
        }
      });
    }
  });
}

describe('peft export and import', () => {
  let base: HfCausalLm;
  let tmp: string;
  beforeAll(async () => {
    await selectBackend('wasm');
    base = (await loadHfModel(modelDir('qwen2-tiny'))).model;
    tmp = await mkdtemp(path.join(os.tmpdir(), 'actorgym-lora-'));
  });
  afterAll(async () => {
    base.dispose();
    await rm(tmp, { recursive: true, force: true });
  });

  it('re-exports peft\'s adapter in peft\'s names, shapes and values, and reads its own export back exactly', async () => {
    const { adapters } = await loadPeftAdapter(loraDir('qwen2-tiny-r4'), base.config);
    const out = path.join(tmp, 'roundtrip');
    try {
      await exportPeftAdapter(adapters, out, { baseModelNameOrPath: 'tests/fixtures/hf/qwen2-tiny' });
      expect((await readdir(out)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
      const config = JSON.parse(await readFile(path.join(out, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
      expect(config).toMatchObject({ peft_type: 'LORA', task_type: 'CAUSAL_LM', r: 4, lora_alpha: 8, bias: 'none', fan_in_fan_out: false, use_rslora: false, base_model_name_or_path: 'tests/fixtures/hf/qwen2-tiny' });
      expect(config['target_modules']).toEqual(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']);
      // Same tensor names, shapes and float32 values as the file peft wrote.
      const ours = await SafetensorsFile.open(path.join(out, 'adapter_model.safetensors'));
      const theirs = await SafetensorsFile.open(path.join(loraDir('qwen2-tiny-r4'), 'adapter_model.safetensors'));
      try {
        expect(ours.tensorNames.sort()).toEqual(theirs.tensorNames.sort());
        expect(ours.entry('base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight').shape).toEqual([4, 32]);
        expect(ours.entry('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight').shape).toEqual([32, 4]);
        for (const n of theirs.tensorNames) {
          expect(ours.entry(n).shape).toEqual(theirs.entry(n).shape);
          expect(bitIdentical(await ours.readFloat32(n), await theirs.readFloat32(n))).toBe(true);
        }
      } finally {
        await ours.close();
        await theirs.close();
      }
      const back = (await loadPeftAdapter(out, base.config)).adapters;
      try {
        expect(back.config).toEqual(adapters.config);
        back.variables.forEach((v, i) => expect(bitIdentical(v.dataSync() as Float32Array, adapters.variables[i]!.dataSync() as Float32Array)).toBe(true));
      } finally {
        back.dispose();
      }
    } finally {
      adapters.dispose();
    }
  });

  it('refuses an existing folder unless asked to overwrite, then replaces it whole', async () => {
    const adapters = initLoraAdapters(base.config, loraConfig({ r: 2, alpha: 4, targetModules: ['q_proj'] }), 1);
    const out = path.join(tmp, 'exists');
    try {
      await exportPeftAdapter(adapters, out, { baseModelNameOrPath: 'x' });
      const err = await expectError(exportPeftAdapter(adapters, out, { baseModelNameOrPath: 'y' }));
      expect(err.code).toBe('LORA_OUT_EXISTS');
      expect(JSON.parse(await readFile(path.join(out, 'adapter_config.json'), 'utf8'))).toMatchObject({ base_model_name_or_path: 'x' });
      await exportPeftAdapter(adapters, out, { baseModelNameOrPath: 'y', overwrite: true });
      expect(JSON.parse(await readFile(path.join(out, 'adapter_config.json'), 'utf8'))).toMatchObject({ base_model_name_or_path: 'y' });
      expect((await readdir(tmp)).filter((f) => f.startsWith('exists'))).toEqual(['exists']);
    } finally {
      adapters.dispose();
    }
  });

  it('writes nothing when it fails half-way (a NaN weight), leaving no partial folder', async () => {
    const adapters = initLoraAdapters(base.config, loraConfig({ r: 2, alpha: 4 }), 1);
    const out = path.join(tmp, 'nan');
    try {
      const last = adapters.pairs[adapters.pairs.length - 1]!;
      last.b.assign(tf.fill([2, last.module.outFeatures], Number.NaN));
      const err = await expectError(exportPeftAdapter(adapters, out, { baseModelNameOrPath: 'x' }));
      expect(err.code).toBe('LORA_NON_FINITE');
      expect(err.field).toBe('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight');
      expect((await readdir(tmp)).filter((f) => f.startsWith('nan'))).toEqual([]);
    } finally {
      adapters.dispose();
    }
  });

  it('reads "all-linear" as the seven projections and keeps a non-zero lora_dropout (not applied at inference)', async () => {
    const dir = path.join(tmp, 'all-linear');
    await cp(loraDir('qwen2-tiny-r4'), dir, { recursive: true });
    const file = path.join(dir, 'adapter_config.json');
    const c = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...c, target_modules: 'all-linear', lora_dropout: 0.05 }));
    const { adapters } = await loadPeftAdapter(dir, base.config);
    const out = path.join(tmp, 'all-linear-out');
    try {
      expect(adapters.config.targetModules).toEqual(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']);
      expect(adapters.config.dropout).toBe(0.05);
      await exportPeftAdapter(adapters, out, { baseModelNameOrPath: 'x' });
      expect(JSON.parse(await readFile(path.join(out, 'adapter_config.json'), 'utf8'))).toMatchObject({ lora_dropout: 0.05 });
    } finally {
      adapters.dispose();
    }
  });

  it('refuses to attach adapters made for a model of another shape', async () => {
    const other = (await loadHfModel(modelDir('qwen3-tiny'))).model;
    // qwen3-tiny's q_proj is 32 → 64 (head_dim 16), qwen2-tiny's 32 → 32.
    const adapters = initLoraAdapters(other.config, loraConfig({ r: 2, alpha: 4, targetModules: ['q_proj'] }), 1);
    try {
      let caught: unknown;
      try {
        attachLora(base, adapters);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(LoraError);
      expect((caught as LoraError).code).toBe('LORA_MODEL_MISMATCH');
      expect((caught as LoraError).field).toBe('model.layers.0.self_attn.q_proj');
    } finally {
      adapters.dispose();
      other.dispose();
    }
  });

  describe('refuses a bad adapter folder, naming the file and field', () => {
    const variant = async (label: string, edit: (dir: string) => Promise<void>): Promise<string> => {
      const dir = path.join(tmp, `bad-${label}`);
      await cp(loraDir('qwen2-tiny-r4'), dir, { recursive: true });
      await edit(dir);
      return dir;
    };
    const editConfig = (change: (c: Record<string, unknown>) => void) => async (dir: string): Promise<void> => {
      const file = path.join(dir, 'adapter_config.json');
      const c = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
      change(c);
      await writeFile(file, JSON.stringify(c));
    };
    const cases: [string, (dir: string) => Promise<void>, string, string, string][] = [
      ['peft-type', editConfig((c) => (c['peft_type'] = 'IA3')), 'HF_CONFIG_UNSUPPORTED', 'peft_type', 'adapter_config.json'],
      ['dora', editConfig((c) => (c['use_dora'] = true)), 'HF_CONFIG_UNSUPPORTED', 'use_dora', 'adapter_config.json'],
      ['rank-pattern', editConfig((c) => (c['rank_pattern'] = { q_proj: 8 })), 'HF_CONFIG_UNSUPPORTED', 'rank_pattern', 'adapter_config.json'],
      ['regex', editConfig((c) => (c['target_modules'] = '.*proj')), 'HF_CONFIG_UNSUPPORTED', 'target_modules', 'adapter_config.json'],
      ['lm-head', editConfig((c) => (c['target_modules'] = ['q_proj', 'lm_head'])), 'HF_CONFIG_UNSUPPORTED', 'target_modules', 'adapter_config.json'],
      ['rank', editConfig((c) => (c['r'] = 8)), 'HF_TENSOR_SHAPE', 'base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', 'adapter_model.safetensors'],
      ['fewer-targets', editConfig((c) => (c['target_modules'] = ['q_proj'])), 'HF_TENSOR_UNEXPECTED', 'base_model.model.model.layers.0.mlp.down_proj.lora_A.weight', 'adapter_model.safetensors'],
      ['missing-tensor', async (dir) => {
        await editConfig((c) => (c['target_modules'] = ['q_proj']))(dir);
        const q = (n: number, which: 'A' | 'B') => `base_model.model.model.layers.${n}.self_attn.q_proj.lora_${which}.weight`;
        const blank = (shape: number[]) => ({ shape, data: new Float32Array(shape[0]! * shape[1]!) });
        await writeFile(path.join(dir, 'adapter_model.safetensors'), encodeSafetensors([
          { name: q(0, 'A'), ...blank([4, 32]) }, { name: q(0, 'B'), ...blank([32, 4]) }, { name: q(1, 'A'), ...blank([4, 32]) },
        ]));
      }, 'HF_TENSOR_MISSING', 'base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight', 'adapter_model.safetensors'],
      ['no-weights', (dir) => rm(path.join(dir, 'adapter_model.safetensors')), 'HF_TENSOR_MISSING', '(file)', 'adapter_model.safetensors'],
      ['no-config', (dir) => rm(path.join(dir, 'adapter_config.json')), 'HF_CONFIG_INVALID', '(file)', 'adapter_config.json'],
    ];
    for (const [label, edit, code, field, file] of cases) {
      it(label, async () => {
        const before = tf.memory().numTensors;
        const err = await expectError(loadPeftAdapter(await variant(label, edit), base.config));
        expect({ code: err.code, field: err.field }).toEqual({ code, field });
        expect(err.message).toContain(file);
        expect(tf.memory().numTensors).toBe(before);
      });
    }
  });
});
