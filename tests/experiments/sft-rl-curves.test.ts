import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envCurves } from '../../experiments/sft-rl/curves.ts';

const root = mkdtempSync(path.join(tmpdir(), 'actorgym-curves-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const jsonl = (rows: object[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

function seed(s: number, withRl: boolean): void {
  const dir = path.join(root, 'babyai');
  mkdirSync(path.join(dir, `sft-s${s}`), { recursive: true });
  writeFileSync(path.join(dir, `sft-s${s}`, 'metrics.jsonl'), jsonl([
    { step: 1, loss: 0.3, valLoss: 0.31, seconds: 30 },
    { step: 2, loss: 0.2, valLoss: 0.25, seconds: 60, testSuccessRate: 0.5 + 0.1 * s },
  ]));
  writeFileSync(path.join(dir, `sft-s${s}.json`), JSON.stringify({ trainSeconds: 60, testSuccessRate: 0.5 + 0.1 * s }));
  writeFileSync(path.join(dir, `random-s${s}.json`), JSON.stringify({ successRate: 0.4 }));
  if (!withRl) return;
  mkdirSync(path.join(dir, `rl-s${s}`), { recursive: true });
  writeFileSync(path.join(dir, `rl-s${s}`, 'metrics.jsonl'), jsonl([1, 2, 3].map((step) => ({ step, successRate: 0.6, rolloutSeconds: 5, learnSeconds: 5 }))));
  writeFileSync(path.join(dir, `rl-s${s}.json`), JSON.stringify({ trainSeconds: 30, testSuccessRate: 0.7 }));
}

describe('SFT → RL curves (experiments/sft-rl/curves.ts)', () => {
  it('draws every series from the files and names what is missing instead of failing', async () => {
    seed(0, true);
    seed(1, false); // RL still running: no summary yet
    writeFileSync(path.join(root, 'babyai', 'rl-s1.json'), '');
    const curves = await envCurves(root, 'babyai');
    expect(curves?.seeds).toEqual([0, 1]);
    expect(curves?.missing).toEqual(['babyai seed 2: no finished SFT run', 'babyai seed 1: no finished RL run']);
    for (const name of ['SFT: test success (evaluation epochs)', 'RL: rollout success on train tasks', 'RL: final test success', 'random, test (40.0%)']) {
      expect(curves?.success).toContain(name);
    }
    expect(curves?.loss).toContain('validation (held-out tasks)');
    expect(await envCurves(root, 'textcraft')).toBeUndefined();
  });
});
