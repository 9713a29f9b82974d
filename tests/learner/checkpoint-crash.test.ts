// Issue 24, finding 6: "killing that resumed run during its next write left no loadable
// checkpoint in 6 of 6 tries; stale checkpoint.tmp-PID folders are never removed". A write is
// cut at every stage (the writer's onStage hook throws: the writer cleans nothing up on an
// error, so the folders are left exactly as a kill would leave them) and, independently of the
// stage names, before every filesystem call it makes; a loadable checkpoint must remain each time.
import { spawnSync } from 'node:child_process';
import { promises as fsp, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CheckpointData } from '../../learner/checkpoint/format.ts';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import { processAlive, removeStaleCheckpointTemps } from '../../learner/checkpoint/stale.ts';
import { CHECKPOINT_WRITE_STAGES, writeCheckpoint, type CheckpointWriteStage } from '../../learner/checkpoint/write.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels, toCheckpoint, type RunModels } from '../../learner/run-models.ts';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';

const config = resolveConfig('babyai', { steps: 4, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 32 } });
const tokenizer = Tokenizer.fromCorpus(['go to the red ball', 'turn left'], { maxVocab: 128, minCount: 1 });
let root: string;
let models: RunModels;
const data = new Map<number, CheckpointData>();

/** The same weights at another step: enough to tell which checkpoint the reader found. */
async function at(step: number): Promise<CheckpointData> {
  if (!data.has(step)) {
    data.set(step, await toCheckpoint(models, {
      step, policyVersion: step, curriculum: { completedSteps: step, horizon: 6 }, rng: { seed: 0, derivedFrom: 'seed and step' },
      config,
    }));
  }
  return data.get(step)!;
}

/** The folders a previous run can leave: nothing, a checkpoint, a checkpoint and a leftover .old, or only .old. */
type Before = 'none' | 'current' | 'current+old' | 'old';
let cases = 0;
async function prepare(before: Before): Promise<string> {
  const run = path.join(root, `case-${++cases}`);
  mkdirSync(run, { recursive: true });
  if (before === 'current' || before === 'current+old') await writeCheckpoint(path.join(run, 'checkpoint'), await at(1));
  if (before === 'current+old') await writeCheckpoint(path.join(run, 'checkpoint.old'), await at(0));
  if (before === 'old') await writeCheckpoint(path.join(run, 'checkpoint.old'), await at(1));
  return run;
}

const FILE_STAGES: CheckpointWriteStage[] = [
  'temp-created', 'state.json-written', 'weights.bin-written', 'reference.bin-written', 'optimizer.bin-written', 'tokenizer.json-written',
  'manifest-written', 'temp-synced',
];
const EXPECTED: Record<Before, CheckpointWriteStage[]> = {
  none: [...FILE_STAGES, 'new-in-place'],
  current: [...FILE_STAGES, 'current-moved-aside', 'new-in-place', 'old-trashed', 'trash-removed'],
  'current+old': [...FILE_STAGES, 'stale-old-trashed', 'stale-trash-removed', 'current-moved-aside', 'new-in-place', 'old-trashed', 'trash-removed'],
  old: [...FILE_STAGES, 'new-in-place', 'old-trashed', 'trash-removed'],
};
const BEFORES = Object.keys(EXPECTED) as Before[];

beforeAll(async () => {
  await selectBackend('cpu');
  root = mkdtempSync(path.join(tmpdir(), 'actorgym-ckpt-crash-'));
  models = freshModels(tokenizer, config);
  const grads = tf.variableGrads(() => tf.addN(models.optimizer.variables.map((v) => tf.sum(tf.square(v)))) as tf.Scalar, models.optimizer.variables);
  models.optimizer.apply(grads.grads);
  tf.dispose([grads.value, ...Object.values(grads.grads)]);
});
afterAll(() => {
  models.dispose();
  rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkpoint writes survive a crash at every stage (issue 24, finding 6)', () => {
  it.each(BEFORES)('the stages, in order, from "%s"', async (before) => {
    const run = await prepare(before);
    const seen: CheckpointWriteStage[] = [];
    await writeCheckpoint(path.join(run, 'checkpoint'), await at(2), { onStage: (stage) => void seen.push(stage) });
    expect(seen).toEqual(EXPECTED[before]);
    expect(EXPECTED[before].every((s) => CHECKPOINT_WRITE_STAGES.includes(s))).toBe(true);
    expect(readdirSync(run)).toEqual(['checkpoint']);
    expect((await readCheckpoint(run)).data.state.step).toBe(2);
  });

  it('every stage occurs from some starting state', () => {
    expect(new Set(BEFORES.flatMap((b) => EXPECTED[b]))).toEqual(new Set(CHECKPOINT_WRITE_STAGES));
  });

  for (const before of BEFORES) {
    it.each(EXPECTED[before])(`from "${before}", a crash after %s leaves a loadable checkpoint, and the next write cleans up`, async (crashAt) => {
      const run = await prepare(before);
      const crash = (stage: CheckpointWriteStage) => {
        if (stage === crashAt) throw new Error(`test: crash after ${stage}`);
      };
      await expect(writeCheckpoint(path.join(run, 'checkpoint'), await at(2), { onStage: crash })).rejects.toThrow(/test: crash/);
      const landed = EXPECTED[before].indexOf(crashAt) >= EXPECTED[before].indexOf('new-in-place');
      if (before === 'none' && !landed) {
        // Before the first checkpoint is in place there is nothing to load, and nothing half-written is claimed.
        await expect(readCheckpoint(run)).rejects.toThrow(/CKPT_MISSING/);
      } else {
        expect((await readCheckpoint(run)).data.state.step).toBe(landed ? 2 : 1);
      }
      await writeCheckpoint(path.join(run, 'checkpoint'), await at(3));
      expect(readdirSync(run)).toEqual(['checkpoint']);
      expect((await readCheckpoint(run)).data.state.step).toBe(3);
    });
  }

  // Independent of the stage names: a crash before each filesystem call that changes something.
  it.each(['current', 'current+old', 'old'] as const)('from "%s", a crash before every rename, delete, mkdir or file open leaves a loadable checkpoint', async (before) => {
    const crashBefore = async (k: number): Promise<boolean> => {
      const run = await prepare(before);
      let calls = 0;
      const guard = <A extends unknown[], R>(name: 'rename' | 'rm' | 'mkdir' | 'open', real: (...args: A) => Promise<R>) =>
        vi.spyOn(fsp, name).mockImplementation(((...args: A) => {
          const mutates = name !== 'open' || args[1] === 'w';
          if (mutates && ++calls === k) return Promise.reject(new Error(`test: crash before ${name} #${k}`));
          return real(...args);
        }) as never);
      const real = { rename: fsp.rename, rm: fsp.rm, mkdir: fsp.mkdir, open: fsp.open };
      guard('rename', real.rename);
      guard('rm', real.rm);
      guard('mkdir', real.mkdir);
      guard('open', real.open as (...args: unknown[]) => Promise<unknown>);
      const finished = await writeCheckpoint(path.join(run, 'checkpoint'), await at(2)).then(() => true, () => false);
      vi.restoreAllMocks();
      const { data: loaded } = await readCheckpoint(run);
      expect([1, 2], `crash before call ${k}`).toContain(loaded.state.step);
      return finished;
    };
    let k = 1;
    while (!(await crashBefore(k))) k += 1;
    // The whole write was walked: it needs more calls than the files it writes.
    expect(k).toBeGreaterThan(6);
  });
});

describe('stale temp folders (issue 24, finding 6)', () => {
  it('only the temp and trash folders of dead processes are removed', () => {
    const run = path.join(root, 'stale');
    const names = ['checkpoint.tmp-101', 'checkpoint.trash-102', 'checkpoint.tmp-103', `checkpoint.tmp-${process.pid}`, 'checkpoint', 'checkpoint.old', 'other.tmp-101'];
    for (const name of names) mkdirSync(path.join(run, name), { recursive: true });
    const removed = removeStaleCheckpointTemps(path.join(run, 'checkpoint'), (pid) => pid === 103 || pid === process.pid);
    expect(removed.map((p) => path.basename(p)).sort()).toEqual(['checkpoint.tmp-101', 'checkpoint.trash-102']);
    expect(readdirSync(run).sort()).toEqual(['checkpoint', 'checkpoint.old', 'checkpoint.tmp-103', `checkpoint.tmp-${process.pid}`, 'other.tmp-101']);
    expect(removeStaleCheckpointTemps(path.join(root, 'no-such-run', 'checkpoint'))).toEqual([]);
  });

  it('tells a live process from one that has exited', () => {
    expect(processAlive(process.pid)).toBe(true);
    const exited = spawnSync(process.execPath, ['-e', '']);
    expect(exited.status).toBe(0);
    expect(processAlive(exited.pid)).toBe(false);
  });
});
