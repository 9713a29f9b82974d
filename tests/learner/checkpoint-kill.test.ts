// Issue 24, finding 6: "killing that resumed run during its next write left no loadable
// checkpoint in 6 of 6 tries". A real training process is killed with SIGKILL during its second
// checkpoint write, three times (held at a chosen stage twice, and once mid-write wherever the
// kill lands); each time a loadable checkpoint is left and `--resume` ends with the metrics of
// an uninterrupted run, with no temp folder left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../learner/checkpoint/read.ts';
import type { CheckpointWriteStage } from '../../learner/checkpoint/write.ts';
import { createTrainingSystem } from '../../actors/training-system.ts';
import { runCli } from '../cli/run-cli.ts';
import { KILL_RUN } from './checkpoint-kill-run.ts';
import { metricLines } from '../actors/metric-lines.ts';

const CHILD = fileURLToPath(new URL('./checkpoint-kill-child.ts', import.meta.url));
const STEPS = 3;
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-ckpt-kill-'));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const KILLS = {
  aside: ['current-moved-aside', 'hold'],
  half: ['weights.bin-written', 'hold'],
  anywhere: ['temp-created', 'go'],
} as const;
const killed: Partial<Record<keyof typeof KILLS, Promise<NodeJS.Signals | null>>> = {};
let whole: ReturnType<typeof metricLines>;
beforeAll(async () => {
  // The three children start together (they spend most of their time loading); the runs below wait for theirs.
  for (const [name, [stage, mode]] of Object.entries(KILLS) as [keyof typeof KILLS, (typeof KILLS)[keyof typeof KILLS]][]) {
    killed[name] = killDuringSecondWrite(path.join(dir, name), stage, mode);
    killed[name].catch(() => {}); // awaited (and reported) by its test
  }
  const reference = path.join(dir, 'whole');
  await createTrainingSystem({ ...KILL_RUN, steps: STEPS, out: reference }).run();
  whole = metricLines(reference);
});

/** Starts the child, kills it with SIGKILL when it reports `stage` of its second write, and waits for it to be gone. */
function killDuringSecondWrite(run: string, stage: CheckpointWriteStage, mode: 'hold' | 'go'): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, run, String(STEPS), '2', stage, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(`AT ${stage}\n`)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // 'exit' comes after the child is reaped, so its PID no longer counts as alive.
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (signal === 'SIGKILL') resolve(signal);
      else reject(new Error(`child ended with code ${code} before the kill: ${stdout}${stderr.slice(-2000)}`));
    });
  });
}

describe('SIGKILL during a checkpoint write (issue 24, finding 6)', () => {
  it('held after checkpoint/ moved aside (only checkpoint.old is complete): `train --resume DIR` continues in DIR', async () => {
    const run = path.join(dir, 'aside');
    expect(await killed.aside).toBe('SIGKILL');
    expect(readdirSync(run).filter((n) => n.startsWith('checkpoint')).map((n) => n.replace(/\d+$/, 'PID')).sort()).toEqual(['checkpoint.old', 'checkpoint.tmp-PID']);
    expect((await readCheckpoint(run)).data.state.step).toBe(1);
    const resumed = await runCli(['train', '--resume', run, '--steps', String(STEPS), '--backend', 'cpu', '--learner-threads', '1', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done', fromStep: 1, steps: STEPS, out: run });
    expect(metricLines(run)).toEqual(whole);
    expect(readdirSync(run).sort()).toEqual(['checkpoint', 'config.json', 'metrics.jsonl', 'trajectories']);
    expect((await readCheckpoint(run)).data.state.step).toBe(STEPS);
  });

  it.each([
    ['held with half the files written', 'half'],
    ['killed mid-write wherever the kill lands', 'anywhere'],
  ] as const)('%s: a loadable checkpoint is left and the resumed run ends as the uninterrupted one', async (_, name) => {
    const run = path.join(dir, name);
    expect(await killed[name]).toBe('SIGKILL');
    const left = (await readCheckpoint(run)).data.state.step;
    expect([1, 2, STEPS]).toContain(left);
    const summary = await createTrainingSystem({ env: 'babyai', backend: 'cpu', learnerThreads: 1, steps: STEPS, resume: run }).run();
    expect(summary).toMatchObject({ status: 'done', fromStep: left, steps: STEPS, out: run });
    expect(metricLines(run)).toEqual(whole);
    // The dead writer's temp folder was removed at start; .old is gone after the next write.
    expect(readdirSync(run).sort()).toEqual(['checkpoint', 'config.json', 'metrics.jsonl', 'trajectories']);
  });
});
