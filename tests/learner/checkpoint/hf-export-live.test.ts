/**
 * Issue 36, item 6, checked by the tools the export is for: the PEFT folder `actorgym export`
 * writes from a checkpoint is loaded by peft on top of the base (as scripts/hf/peft-logits.py does), and
 * the merged folder by transformers' AutoModelForCausalLM alone; both give our adapter-attached
 * model's logits (≤ 1e-4). A bf16 merged folder loads as bfloat16 with dtype="auto".
 *
 * Runs where Python with torch, transformers, safetensors and peft is importable ($ACTORGYM_PYTHON,
 * else /tmp/hfvenv/bin/python, else python3); elsewhere it is skipped, saying why.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportHfCheckpoint, writeHfCheckpoint } from '../../../learner/checkpoint/hf-checkpoint.ts';
import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { leftPad } from '../../../policy/hf/left-pad.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import { attachLora } from '../../../policy/hf/lora/attach-lora.ts';
import type { LoraOptions } from '../../../policy/hf/lora/lora-config.ts';
import { findPeftPython, hfState, modelDir, optimizerBlob, trainedAdapters } from './hf-fixtures.ts';

const TOLERANCE = 1e-4;
/**
 * One Python process for every check (importing torch and transformers costs seconds each time):
 * for each job, the logits of the base + the exported adapter as peft computes them (as
 * scripts/hf/peft-logits.py does), of the merged folder loaded by transformers alone, and the
 * dtype a bf16 merged folder loads as with dtype="auto". Logits are float32, sequence after
 * sequence, [length, vocab] each.
 */
const PYTHON = `
import json, sys, torch
from peft import PeftModel
from transformers import AutoModelForCausalLM
torch.set_num_threads(1)
jobs, inputs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
def load(folder, dtype=torch.float32):
    return AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, attn_implementation="eager").eval()
def write(model, out):
    with torch.no_grad(), open(out, "wb") as f:
        for ids in inputs:
            f.write(model(torch.tensor([ids])).logits[0].to(torch.float32).contiguous().numpy().astype("<f4").tobytes())
for job in jobs:
    write(PeftModel.from_pretrained(load(job["base"]), job["peft"]).eval(), job["peftOut"])
    write(load(job["merged"]), job["mergedOut"])
    print(job["name"], next(load(job["bf16"], "auto").parameters()).dtype)
`;
const INPUTS = [[1, 5, 9, 2, 33, 120], [7, 7, 100, 255]];
const CASES: readonly { model: string; lora: LoraOptions }[] = [
  { model: 'qwen2-tiny', lora: { r: 4, alpha: 8 } },
  { model: 'llama3-tiny', lora: { r: 2, alpha: 4, targetModules: ['q_proj', 'o_proj', 'gate_proj', 'down_proj'], useRslora: true } },
];

const { python, reason } = findPeftPython();
if (python === undefined) console.warn(`hf-export-live.test.ts skipped: ${reason}`);
const run = promisify(execFile);

function split(bytes: Uint8Array, vocab: number): Float32Array[] {
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  let offset = 0;
  return INPUTS.map((ids) => all.subarray(offset, (offset += ids.length * vocab)));
}
const logits = (model: HfCausalLm, ids: number[]): Float32Array => tf.tidy(() => model.forward(leftPad([ids])).logits.dataSync() as Float32Array);
const maxDiff = (a: Float32Array, b: Float32Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

interface Job {
  readonly name: string;
  readonly base: string;
  readonly peft: string;
  readonly merged: string;
  readonly bf16: string;
  readonly peftOut: string;
  readonly mergedOut: string;
}

/** Trains nothing: adapters with B perturbed, checkpointed, then exported three ways. */
async function exportAll(tmp: string, name: string, options: LoraOptions): Promise<{ job: Job; ours: Float32Array[]; base: Float32Array[] }> {
  const model = (await loadHfModel(modelDir(name))).model;
  const lora = attachLora(model, trainedAdapters(model.config, options, 31));
  try {
    const ckpt = path.join(tmp, name, 'checkpoint');
    await writeHfCheckpoint(ckpt, { state: hfState('lora', 1, modelDir(name), model.config, lora.adapters), adapters: lora.adapters, optimizer: await optimizerBlob(1) });
    const job: Job = {
      name,
      base: modelDir(name),
      peft: path.join(tmp, `${name}-peft`),
      merged: path.join(tmp, `${name}-merged`),
      bf16: path.join(tmp, `${name}-merged-bf16`),
      peftOut: path.join(tmp, `${name}-peft.bin`),
      mergedOut: path.join(tmp, `${name}-merged.bin`),
    };
    await exportHfCheckpoint(ckpt, { format: 'peft', out: job.peft });
    await exportHfCheckpoint(ckpt, { format: 'merged', out: job.merged });
    await exportHfCheckpoint(ckpt, { format: 'merged', out: job.bf16, dtype: 'bf16' });
    return { job, ours: INPUTS.map((ids) => logits(lora.withAdapters, ids)), base: INPUTS.map((ids) => logits(lora.withoutAdapters, ids)) };
  } finally {
    lora.dispose();
  }
}

describe.skipIf(python === undefined)('peft and transformers load what `export` writes', () => {
  let tmp: string;
  let stdout: string;
  const results = new Map<string, Awaited<ReturnType<typeof exportAll>>>();
  beforeAll(async () => {
    await selectBackend('wasm');
    tmp = await mkdtemp(path.join(os.tmpdir(), 'actorgym-export-live-'));
    for (const { model, lora } of CASES) results.set(model, await exportAll(tmp, model, lora));
    const jobs = [...results.values()].map((r) => r.job);
    stdout = (await run(python!, ['-c', PYTHON, JSON.stringify(jobs), JSON.stringify(INPUTS)], { timeout: 280_000 })).stdout;
  }, 300_000);
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  for (const { model: name } of CASES) {
    it(`${name}: peft with the exported adapter, and transformers with the merged folder, give our logits; bf16 loads as bfloat16`, async () => {
      const { job, ours, base } = results.get(name)!;
      expect(stdout).toContain(`${name} torch.bfloat16`);
      const vocab = JSON.parse(await readFile(path.join(job.base, 'config.json'), 'utf8')).vocab_size as number;
      const [viaPeft, viaMerged] = [split(await readFile(job.peftOut), vocab), split(await readFile(job.mergedOut), vocab)];
      for (const i of INPUTS.keys()) {
        const change = maxDiff(ours[i]!, base[i]!);
        const [dPeft, dMerged] = [maxDiff(ours[i]!, viaPeft[i]!), maxDiff(ours[i]!, viaMerged[i]!)];
        console.log(`${name} sequence ${i}: max |Δlogit| ours vs peft ${dPeft.toExponential(2)}, vs transformers on the merged folder ${dMerged.toExponential(2)} (adapters move logits by up to ${change.toFixed(3)})`);
        expect(change).toBeGreaterThan(0.05);
        expect(dPeft).toBeLessThanOrEqual(TOLERANCE);
        expect(dMerged).toBeLessThanOrEqual(TOLERANCE);
      }
    });
  }
});
