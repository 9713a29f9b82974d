/**
 * Issue 36, item 5: a Hugging Face run's checkpoint goes through the same crash-safe stages as
 * the transformer's (issue 24, finding 6: tests/learner/checkpoint-crash.test.ts). A write is cut
 * after every stage, from every starting state, and a readable checkpoint must remain each time;
 * the next write cleans up.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disposeHfCheckpoint, hfCheckpointWriteStages, namedWeights, readHfCheckpoint, writeHfCheckpoint, type HfCheckpointData } from '../../../learner/checkpoint/hf-checkpoint.ts';
import type { CheckpointWriteStage } from '../../../learner/checkpoint/write.ts';
import { selectBackend } from '../../../policy/backend.ts';
import type { HfCausalLm } from '../../../policy/hf/causal-lm.ts';
import { loadHfModel } from '../../../policy/hf/load-hf-model.ts';
import type { LoraAdapters } from '../../../policy/hf/lora/lora-adapters.ts';
import { hfState, modelDir, optimizerBlob, trainedAdapters } from './hf-fixtures.ts';

const BASE = modelDir('qwen2-tiny');
let root: string;
let base: HfCausalLm;
let adapters: LoraAdapters;
let optimizer: Uint8Array;

const at = (step: number): HfCheckpointData => ({ state: hfState('lora', step, BASE, base.config, adapters), adapters, optimizer });

async function stepOf(run: string): Promise<number> {
  const { data } = await readHfCheckpoint(run);
  disposeHfCheckpoint(data);
  return data.state.step;
}

type Before = 'none' | 'current' | 'current+old' | 'old';
let cases = 0;
async function prepare(before: Before): Promise<string> {
  const run = path.join(root, `case-${++cases}`);
  mkdirSync(run, { recursive: true });
  if (before === 'current' || before === 'current+old') await writeHfCheckpoint(path.join(run, 'checkpoint'), at(1));
  if (before === 'current+old') await writeHfCheckpoint(path.join(run, 'checkpoint.old'), at(0));
  if (before === 'old') await writeHfCheckpoint(path.join(run, 'checkpoint.old'), at(1));
  return run;
}

const FILE_STAGES: CheckpointWriteStage[] = [
  'temp-created', 'state.json-written', 'adapter_config.json-written', 'adapter_model.safetensors-written', 'optimizer.bin-written', 'manifest-written', 'temp-synced',
];
const EXPECTED: Record<Before, CheckpointWriteStage[]> = {
  none: [...FILE_STAGES, 'new-in-place'],
  current: [...FILE_STAGES, 'current-moved-aside', 'new-in-place', 'old-trashed', 'trash-removed'],
  'current+old': [...FILE_STAGES, 'stale-old-trashed', 'stale-trash-removed', 'current-moved-aside', 'new-in-place', 'old-trashed', 'trash-removed'],
  old: [...FILE_STAGES, 'new-in-place', 'old-trashed', 'trash-removed'],
};
const BEFORES = Object.keys(EXPECTED) as Before[];

beforeAll(async () => {
  await selectBackend('wasm');
  root = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-ckpt-crash-'));
  base = (await loadHfModel(BASE)).model;
  adapters = trainedAdapters(base.config, { r: 2, alpha: 4 }, 3);
  optimizer = await optimizerBlob(2);
});
afterAll(() => {
  adapters.dispose();
  base.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe("a Hugging Face run's checkpoint write survives a crash at every stage", () => {
  it.each(BEFORES)('the stages, in order, from "%s"', async (before) => {
    const run = await prepare(before);
    const seen: CheckpointWriteStage[] = [];
    await writeHfCheckpoint(path.join(run, 'checkpoint'), at(2), { onStage: (stage) => void seen.push(stage) });
    expect(seen).toEqual(EXPECTED[before]);
    expect(EXPECTED[before].every((s) => hfCheckpointWriteStages('lora').includes(s))).toBe(true);
    expect(readdirSync(run)).toEqual(['checkpoint']);
    expect(await stepOf(run)).toBe(2);
  });

  it('every stage occurs from some starting state; mode "full" writes its own files', async () => {
    expect(new Set(BEFORES.flatMap((b) => EXPECTED[b]))).toEqual(new Set(hfCheckpointWriteStages('lora')));
    const seen: CheckpointWriteStage[] = [];
    const full = { state: hfState('full', 1, BASE, base.config), weights: namedWeights(base.config, base.weights), optimizer };
    await writeHfCheckpoint(path.join(root, 'full', 'checkpoint'), full, { onStage: (stage) => void seen.push(stage) });
    expect(seen.slice(0, 5)).toEqual(['temp-created', 'state.json-written', 'config.json-written', 'model.safetensors-written', 'optimizer.bin-written']);
    expect(seen).toEqual(hfCheckpointWriteStages('full').filter((s) => !s.includes('old') && !s.includes('trash') && s !== 'current-moved-aside'));
  });

  for (const before of BEFORES) {
    it.each(EXPECTED[before])(`from "${before}", a crash after %s leaves a readable checkpoint, and the next write cleans up`, async (crashAt) => {
      const run = await prepare(before);
      const crash = (stage: CheckpointWriteStage) => {
        if (stage === crashAt) throw new Error(`test: crash after ${stage}`);
      };
      await expect(writeHfCheckpoint(path.join(run, 'checkpoint'), at(2), { onStage: crash })).rejects.toThrow(/test: crash/);
      const landed = EXPECTED[before].indexOf(crashAt) >= EXPECTED[before].indexOf('new-in-place');
      if (before === 'none' && !landed) await expect(readHfCheckpoint(run)).rejects.toThrow(/CKPT_MISSING/);
      else expect(await stepOf(run)).toBe(landed ? 2 : 1);
      await writeHfCheckpoint(path.join(run, 'checkpoint'), at(3));
      expect(readdirSync(run)).toEqual(['checkpoint']);
      expect(await stepOf(run)).toBe(3);
    });
  }
});
