/**
 * A checkpoint's run config is parsed when read back, never cast (issue 35): a corrupt one is a
 * CKPT_CORRUPT error naming the file and the field, for each way it can be wrong.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSavedConfig, resolveConfig } from '../../learner/training-config.ts';
import { loadCheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import { freshModels, toCheckpoint, type RunModels } from '../../learner/run-models.ts';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';

const config = resolveConfig('babyai', { steps: 4, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 32 } });
const tokenizer = Tokenizer.fromCorpus(['go to the red ball', 'turn left'], { maxVocab: 128, minCount: 1 });
let dir: string;
let models: RunModels;

/** A complete checkpoint (valid manifest and checksums) whose state.json holds `saved` as its config. */
async function saveWith(name: string, saved: Readonly<Record<string, unknown>>): Promise<string> {
  const data = await toCheckpoint(models, {
    step: 1, policyVersion: 1, curriculum: { completedSteps: 1, horizon: 6 }, rng: { seed: 0, derivedFrom: 'seed and step' }, config: saved,
  });
  return writeCheckpoint(path.join(dir, name, 'checkpoint'), data);
}

/** Replaces a checkpoint file's bytes and lists the new size and checksum in the manifest, as a writer would have. */
function rewrite(checkpoint: string, name: string, text: string): void {
  writeFileSync(path.join(checkpoint, name), text);
  const manifestFile = path.join(checkpoint, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: Record<string, { bytes: number; sha256: string }> };
  manifest.files[name] = { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') };
  writeFileSync(manifestFile, JSON.stringify(manifest));
}

beforeAll(async () => {
  await selectBackend('cpu');
  dir = mkdtempSync(path.join(tmpdir(), 'actorgym-ckpt-config-'));
  models = freshModels(tokenizer, config);
});
afterAll(() => {
  models.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('a checkpoint config read back from disk (issue 35)', () => {
  it('loads when it is whole', async () => {
    const agent = await loadCheckpointAgent(await saveWith('whole', config), { backend: 'cpu' });
    agent.dispose();
  });

  it('names the file and the field of a value outside its enum', async () => {
    const ckpt = await saveWith('enum', { ...config, algo: 'sgd' });
    await expect(loadCheckpointAgent(ckpt, { backend: 'cpu' })).rejects.toThrow(
      `CKPT_CORRUPT: ${path.join(ckpt, 'state.json')}: field 'algo': expected one of grpo|ppo|reinforce++|rloo`,
    );
  });

  it('names a missing field', async () => {
    const { seed: _seed, ...withoutSeed } = config;
    const ckpt = await saveWith('missing', withoutSeed);
    await expect(loadCheckpointAgent(ckpt, { backend: 'cpu' })).rejects.toThrow(`${path.join(ckpt, 'state.json')}: field 'seed': missing (expected number)`);
  });

  it('names a field of the wrong type, nested ones by their path', async () => {
    const ckpt = await saveWith('type', { ...config, steps: 'four' });
    await expect(loadCheckpointAgent(ckpt, { backend: 'cpu' })).rejects.toThrow(`${path.join(ckpt, 'state.json')}: field 'steps': expected number, got string`);
    const nested = await saveWith('nested', { ...config, model: { ...config.model, dModel: 'wide' } });
    await expect(loadCheckpointAgent(nested, { backend: 'cpu' })).rejects.toThrow(`${path.join(nested, 'state.json')}: field 'model.dModel': expected number, got string`);
  });

  it('names the file that is not JSON', async () => {
    const ckpt = await saveWith('not-json', config);
    rewrite(ckpt, 'state.json', '{"step": 1, "config": {');
    await expect(loadCheckpointAgent(ckpt, { backend: 'cpu' })).rejects.toThrow(`CKPT_CORRUPT: ${path.join(ckpt, 'state.json')} is not valid JSON`);
  });

  it('names the field of the checkpoint metadata itself (state.json, tokenizer.json)', async () => {
    const ckpt = await saveWith('metadata', config);
    const state = JSON.parse(readFileSync(path.join(ckpt, 'state.json'), 'utf8')) as Record<string, unknown>;
    rewrite(ckpt, 'state.json', JSON.stringify({ ...state, optimizer: { iterations: 'one', accBeta1: 0.9, accBeta2: 0.999 } }));
    await expect(readCheckpoint(ckpt)).rejects.toThrow(`CKPT_CORRUPT: ${path.join(ckpt, 'state.json')}: field 'optimizer.iterations': expected number, got string`);
    const other = await saveWith('tokenizer', config);
    rewrite(other, 'tokenizer.json', JSON.stringify({ kind: 'bpe', version: 1, vocab: [] }));
    await expect(readCheckpoint(other)).rejects.toThrow(`CKPT_CORRUPT: ${path.join(other, 'tokenizer.json')}: field 'kind': expected one of actorgym-word-tokenizer`);
  });

  it('reads a config written before a field existed as that field\'s documented default', () => {
    const { relabel: _r, hiddenActions: _h, historyActionsOnly: _o, actionWords: _w, ...old } = config;
    expect(parseSavedConfig(old, 'old/state.json')).toEqual({ ...config, relabel: false, hiddenActions: [], historyActionsOnly: false, actionWords: 'as-written' });
  });
});
