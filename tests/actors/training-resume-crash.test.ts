// Issue 24, finding 6: "`train --resume DIR` where only `checkpoint.old` exists (a crash between
// the two renames) trains to the end but writes no checkpoint, metrics or trajectories". And a
// training run cut at every stage of a checkpoint write (the write's onStage hook throws inside
// the run, leaving the folders as a kill would) resumes from what is left and ends with the
// metrics of an uninterrupted run.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import type { CheckpointWriteStage } from '../../learner/checkpoint/write.ts';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { metricLines } from './metric-lines.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-resume-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: Omit<TrainingOptions, 'steps'> = {
  env: 'babyai', backend: 'cpu', learnerThreads: 1, tasksPerStep: 1, groupSize: 2, schedule: 'fixed:2', seed: 7,
  corpusTasks: 4, checkpointEvery: 1, evalEpisodes: 0, minibatch: 4,
  model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 64 },
};
const resumeTo = (run: string, steps: number, extra: Partial<TrainingOptions> = {}) =>
  createTrainingSystem({ env: 'babyai', backend: 'cpu', learnerThreads: 1, steps, resume: run, ...extra }).run();
const RUN_LAYOUT = ['checkpoint', 'config.json', 'metrics.jsonl', 'trajectories'];
// A PID no process has: above Linux's pid_max limit (2^22).
const DEAD_PID = 4_194_304 + 17;

let whole: ReturnType<typeof metricLines>;
let afterStep1: string;
let cases = 0;
function copyOfStep1(): string {
  const run = path.join(dir, `case-${++cases}`);
  cpSync(afterStep1, run, { recursive: true });
  return run;
}

beforeAll(async () => {
  const reference = path.join(dir, 'whole');
  await createTrainingSystem({ ...base, steps: 3, out: reference }).run();
  whole = metricLines(reference);
  expect(whole.map((m) => m.step)).toEqual([1, 2, 3]);
  afterStep1 = path.join(dir, 'step1');
  await createTrainingSystem({ ...base, steps: 1, out: afterStep1 }).run();
});

describe('resume after a crash during a checkpoint write (issue 24, finding 6)', () => {
  it('resuming where only checkpoint.old exists continues in the run directory: checkpoint, metrics and trajectories', async () => {
    const run = copyOfStep1();
    renameSync(path.join(run, 'checkpoint'), path.join(run, 'checkpoint.old'));
    mkdirSync(path.join(run, `checkpoint.tmp-${DEAD_PID}`));
    const summary = await resumeTo(run, 3);
    expect(summary).toMatchObject({ status: 'done', fromStep: 1, steps: 3, out: run, checkpoint: path.join(run, 'checkpoint') });
    expect(metricLines(run)).toEqual(whole);
    expect(readdirSync(path.join(run, 'trajectories')).sort()).toEqual(['step-000001.jsonl', 'step-000002.jsonl', 'step-000003.jsonl']);
    // checkpoint.old is gone once the new checkpoint is in place, and the dead writer's temp folder at start.
    expect(readdirSync(run).sort()).toEqual(RUN_LAYOUT);
    expect((await readCheckpoint(run)).data.state.step).toBe(3);
  });

  it('--resume pointed at the moved-aside checkpoint folder itself also continues in its run directory', async () => {
    const run = copyOfStep1();
    renameSync(path.join(run, 'checkpoint'), path.join(run, 'checkpoint.old'));
    const summary = await resumeTo(path.join(run, 'checkpoint'), 2);
    expect(summary).toMatchObject({ status: 'done', steps: 2, out: run });
    expect(metricLines(run)).toEqual(whole.slice(0, 2));
  });

  // From checkpoint + a leftover checkpoint.old every stage happens; from checkpoint.old alone
  // (the state a crash between the renames leaves) the write must not touch .old before the new one is in.
  const starts = {
    'checkpoint and checkpoint.old': (run: string) => cpSync(path.join(run, 'checkpoint'), path.join(run, 'checkpoint.old'), { recursive: true }),
    'checkpoint.old only': (run: string) => renameSync(path.join(run, 'checkpoint'), path.join(run, 'checkpoint.old')),
  };
  const STAGES: Record<keyof typeof starts, CheckpointWriteStage[]> = {
    'checkpoint and checkpoint.old': [
      'temp-created', 'state.json-written', 'weights.bin-written', 'reference.bin-written', 'optimizer.bin-written', 'tokenizer.json-written',
      'manifest-written', 'temp-synced', 'stale-old-trashed', 'stale-trash-removed', 'current-moved-aside', 'new-in-place', 'old-trashed', 'trash-removed',
    ],
    'checkpoint.old only': [
      'temp-created', 'state.json-written', 'weights.bin-written', 'reference.bin-written', 'optimizer.bin-written', 'tokenizer.json-written',
      'manifest-written', 'temp-synced', 'new-in-place', 'old-trashed', 'trash-removed',
    ],
  };
  for (const [start, setUp] of Object.entries(starts) as [keyof typeof starts, (run: string) => void][]) {
    it.each(STAGES[start])(`from ${start}: a run cut after %s resumes and ends as the uninterrupted run`, async (crashAt) => {
      const run = copyOfStep1();
      setUp(run);
      const seen: CheckpointWriteStage[] = [];
      const crash = (stage: CheckpointWriteStage) => {
        seen.push(stage);
        if (stage === crashAt) throw new Error(`test: crash after ${stage}`);
      };
      // The resumed run's first checkpoint write (after step 2) is cut.
      await expect(resumeTo(run, 3, { onCheckpointStage: crash })).rejects.toThrow(/test: crash after/);
      expect(seen).toEqual(STAGES[start].slice(0, STAGES[start].indexOf(crashAt) + 1));
      const landed = seen.includes('new-in-place');
      expect((await readCheckpoint(run)).data.state.step).toBe(landed ? 2 : 1);

      const summary = await resumeTo(run, 3);
      expect(summary).toMatchObject({ status: 'done', fromStep: landed ? 2 : 1, steps: 3, out: run });
      expect(metricLines(run)).toEqual(whole);
      expect(readdirSync(run).sort()).toEqual(RUN_LAYOUT);
      expect(existsSync(path.join(run, 'trajectories', 'step-000003.jsonl'))).toBe(true);
    });
  }
});
