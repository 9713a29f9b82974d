import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envCurves, writeCurves } from '../../experiments/sft-rl/curves.ts';

// Issue 25: SFT → RL learning curves from a run directory that run.sh has only partly filled.
const root = mkdtempSync(path.join(tmpdir(), 'actorgym-curves-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const jsonl = (rows: object[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

function sftRun(dir: string, s: number, finished: boolean): void {
  mkdirSync(path.join(dir, `sft-s${s}`), { recursive: true });
  const epochs = [
    { step: 1, loss: 0.3, valLoss: 0.31, seconds: 30 },
    { step: 2, loss: 0.2, valLoss: 0.25, seconds: 60, testSuccessRate: 0.5 + 0.1 * s },
  ];
  // An unfinished run: one epoch written, the next one half written, the summary still empty.
  const text = finished ? jsonl(epochs) : `${jsonl(epochs.slice(0, 1))}{"step":2,"lo`;
  writeFileSync(path.join(dir, `sft-s${s}`, 'metrics.jsonl'), text);
  writeFileSync(path.join(dir, `sft-s${s}.json`), finished ? JSON.stringify({ trainSeconds: 60, testSuccessRate: 0.5 + 0.1 * s }) : '');
}

function rlRun(dir: string, s: number): void {
  mkdirSync(path.join(dir, `rl-s${s}`), { recursive: true });
  writeFileSync(path.join(dir, `rl-s${s}`, 'metrics.jsonl'), jsonl([1, 2, 3].map((step) => ({ step, successRate: 0.6, rolloutSeconds: 5, learnSeconds: 5 }))));
  writeFileSync(path.join(dir, `rl-s${s}.json`), JSON.stringify({ trainSeconds: 30, testSuccessRate: 0.7 }));
}

describe('SFT → RL curves (experiments/sft-rl/curves.ts)', () => {
  const babyai = path.join(root, 'runs', 'babyai');
  sftRun(babyai, 0, true);
  rlRun(babyai, 0);
  sftRun(babyai, 1, true); // its RL is still running: summary empty
  writeFileSync(path.join(babyai, 'rl-s1.json'), '');
  sftRun(babyai, 2, false);
  for (const s of [0, 1, 2]) writeFileSync(path.join(babyai, `random-s${s}.json`), JSON.stringify({ successRate: 0.4 }));

  it('draws every series from the files and names each missing run instead of failing', async () => {
    const curves = await envCurves(path.join(root, 'runs'), 'babyai');
    expect(curves?.sftSeeds).toEqual([0, 1]);
    expect(curves?.rlSeeds).toEqual([0]);
    expect(curves?.missing).toEqual([
      'babyai seed 2: SFT not finished (1 epoch logged so far); left out',
      'babyai seed 1: RL not started; left out',
    ]);
    for (const text of [
      'babyai: demonstrations → SFT → RL (GRPO)',
      'SFT: test success (evaluation epochs)',
      'RL: rollout success on train tasks (5-step mean)',
      'RL: final test success',
      'mean over SFT seeds 0, 1, RL seed 0',
      'random agent, test (40.0%)',
      'epoch 2',
      'RL (GRPO)',
    ]) expect(curves?.success).toContain(text);
    // The loss chart is per seed and keeps the unfinished seed's epochs so far.
    for (const name of ['train, seed 0', 'validation, seed 1', 'train, seed 2, running']) expect(curves?.loss).toContain(name);
  });

  it('writes one pair of SVGs per env with runs and reports the envs without any', async () => {
    const out = path.join(root, 'out');
    const notes = await writeCurves(path.join(root, 'runs'), out, ['babyai', 'textcraft']);
    expect(readFileSync(path.join(out, 'babyai.svg'), 'utf8')).toMatch(/^<svg/);
    expect(existsSync(path.join(out, 'babyai-loss.svg'))).toBe(true);
    expect(existsSync(path.join(out, 'textcraft.svg'))).toBe(false);
    expect(notes).toContain(`textcraft: no finished SFT run under ${path.join(root, 'runs', 'textcraft')}; no picture`);
  });

  it('stops on a broken line of a finished run, naming the file and line', async () => {
    const bad = path.join(root, 'bad', 'search');
    sftRun(bad, 0, true);
    writeFileSync(path.join(bad, 'sft-s0', 'metrics.jsonl'), jsonl([{ step: 1, loss: 'high', seconds: 3 }]));
    await expect(envCurves(path.join(root, 'bad'), 'search')).rejects.toThrow(`${path.join(bad, 'sft-s0', 'metrics.jsonl')}:1`);
  });
});
