/**
 * What a run directory already holds, before a new run is started in it (issue 40, finding 3):
 * a fresh run would write its own `checkpoint/` over the one found, so `train`, `sft` and
 * `start` refuse a directory with a checkpoint unless they resume that very run. A directory
 * without one (a run killed before its first checkpoint, an experiment cell's bookkeeping) holds
 * nothing to resume and may be started over.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { locateCheckpoint } from '../../learner/checkpoint/read.ts';
import { exists, readManifest } from '../../learner/checkpoint/verified-files.ts';
import { RunDir } from './run-dir.ts';

export interface ExistingRun {
  /** The run directory, resolved. */
  readonly dir: string;
  /** Its latest complete checkpoint (`checkpoint/`, or `checkpoint.old/` after a crash mid-write). */
  readonly checkpoint: string;
  /** The checkpoint's step: a learner step, or an SFT run's epoch. */
  readonly step: number;
  readonly kind: 'rl' | 'sft';
}

/** The run with a checkpoint in `out` (its `checkpoint/` or `checkpoint.old/`), or undefined. */
export async function findExistingRun(out: string): Promise<ExistingRun | undefined> {
  const dir = path.resolve(out);
  for (const name of ['checkpoint', 'checkpoint.old']) {
    const checkpoint = path.join(dir, name);
    if (!(await exists(path.join(checkpoint, 'manifest.json')))) continue;
    const step = await readManifest(checkpoint).then((m) => m.step, () => 0);
    return { dir, checkpoint, step, kind: isSftRun(dir) ? 'sft' : 'rl' };
  }
  return undefined;
}

/** True when `resume` names the run in `dir` (its directory or one of its checkpoint folders). */
export async function resumesRun(resume: string, dir: string): Promise<boolean> {
  const located = await locateCheckpoint(resume).catch(() => undefined);
  if (located === undefined) return false;
  return path.resolve(RunDir.ofCheckpoint(located) ?? located) === path.resolve(dir);
}

/** An SFT run's config.json carries its `sft` settings; RL runs' do not. */
function isSftRun(dir: string): boolean {
  try {
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    return config.sft !== undefined;
  } catch {
    return false;
  }
}
