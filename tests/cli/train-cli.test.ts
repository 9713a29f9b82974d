import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-train-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1', '--context', '128', '--backend', 'wasm'];

describe('actorgym train / eval / rollout --agent checkpoint (smoke)', () => {
  it('train → eval → rollout with the checkpoint, all through the real entry point', async () => {
    const run = path.join(dir, 'run');
    const train = await runCli(['train', '--env', 'babyai', '--algo', 'grpo', '--steps', '2', '--out', run, '--eval-episodes', '4', '--json', ...TINY,
      '--instruction-copy', '--copy-word-forms', '--hide-action', 'check available actions', '--history-turns', '2', '--history-actions-only', '--action-words', 'reversed']);
    expect(train.code, train.stderr).toBe(0);
    const summary = JSON.parse(train.stdout);
    expect(summary).toMatchObject({ status: 'done', steps: 2, backend: 'wasm', algo: 'grpo' });
    // The final test evaluation: 4 episodes, and the rate is its successes over the scored ones.
    const { evaluation } = summary;
    expect(evaluation).toMatchObject({ split: 'test', episodes: 4 });
    const { success, failure, truncated, aborted } = evaluation.outcomes;
    expect(success + failure + truncated + aborted).toBe(4);
    expect(aborted).toBeLessThan(4);
    expect(summary.testSuccessRate).toBe(success / (4 - aborted));
    expect(train.stderr).toMatch(/backend: wasm/);
    // The run directory: config, one metrics line per step, trajectories per step, a checkpoint.
    expect(readdirSync(run).sort()).toEqual(['checkpoint', 'config.json', 'metrics.jsonl', 'trajectories']);
    const lines = readFileSync(path.join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((m) => m.step)).toEqual([1, 2]);
    for (const key of ['step', 'horizon', 'successRate', 'meanReward', 'meanTurns', 'lossPolicy', 'lossKl', 'lossEntropy', 'lossValue', 'loss',
      'kl', 'entropy', 'clipFraction', 'gradNorm', 'tokensPerSec', 'rolloutSeconds', 'learnSeconds', 'policyVersion']) {
      expect(lines[1]).toHaveProperty(key);
    }
    const episodes = readFileSync(path.join(run, 'trajectories', 'step-000001.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(episodes).toHaveLength(4);
    expect(episodes[0]).toMatchObject({ taskId: expect.any(String), outcome: expect.any(String), reward: expect.any(Number), turns: expect.any(Number) });
    expect(episodes[0].steps[0]).toMatchObject({ action: expect.any(String), observation: expect.any(String), reward: expect.any(Number) });
    // Flags reach the saved config, and a hidden action is never taken.
    const config = JSON.parse(readFileSync(path.join(run, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      hiddenActions: ['check available actions'], historyTurns: 2, historyActionsOnly: true, actionWords: 'reversed', model: { dModel: 32, instructionCopy: true, copyWordForms: true },
    });
    const actions = ['step-000001.jsonl', 'step-000002.jsonl'].flatMap((f) =>
      readFileSync(path.join(run, 'trajectories', f), 'utf8').trim().split('\n').flatMap((l) => JSON.parse(l).steps.map((st: { action: string }) => st.action)));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions).not.toContain('check available actions');

    const evaluated = await runCli(['eval', '--checkpoint', run, '--split', 'test', '--tasks', '4', '--out', path.join(dir, 'eval'), '--json']);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(JSON.parse(evaluated.stdout)).toMatchObject({ env: 'babyai', split: 'test', agent: 'checkpoint@2', n: 1, tasks: 4, complete: true, missing: 0 });

    const rollout = await runCli(['rollout', '--env', 'babyai', '--agent', `checkpoint:${run}`, '--episodes', '3', '--horizon', '4', '--json']);
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(JSON.parse(rollout.stdout)).toMatchObject({ agent: 'checkpoint@2', episodes: 3, horizon: 4 });
  });

  it('explains bad input: unknown algorithm or schedule, a missing or corrupt checkpoint', async () => {
    // Independent child processes: run them side by side.
    const [algo, schedule, preset, noSteps, missing, actionsOnly, forms, threads, budget] = await Promise.all([
      runCli(['train', '--steps', '1', '--algo', 'dqn', '--out', path.join(dir, 'x')]),
      runCli(['train', '--steps', '1', '--schedule', 'scaling:[6,x]@3', '--out', path.join(dir, 'y')]),
      runCli(['train', '--preset', 'nope', '--out', path.join(dir, 'z')]),
      runCli(['train', '--out', path.join(dir, 'w')]),
      runCli(['eval', '--checkpoint', path.join(dir, 'nowhere'), '--json']),
      runCli(['train', '--steps', '1', '--history-actions-only', '--out', path.join(dir, 'v')]),
      runCli(['train', '--steps', '1', '--copy-word-forms', '--out', path.join(dir, 'u')]),
      runCli(['train', '--steps', '1', '--learner-threads', '3', '--out', path.join(dir, 't')]),
      runCli(['train', '--steps', '1', '--max-minutes', '0', '--out', path.join(dir, 's')]),
    ]);
    expect(budget.code).toBe(1);
    expect(budget.stderr).toMatch(/--max-minutes must be a number > 0, got "0"/);
    expect(threads.code).toBe(1);
    expect(threads.stderr).toMatch(/option '--learner-threads <n>' argument '3' is invalid. Allowed choices are 1, 2/);
    expect(algo.code).toBe(1);
    expect(algo.stderr).toMatch(/unknown algorithm "dqn"; known: grpo, ppo, reinforce\+\+, rloo/);
    // Checked before anything starts: no dashboard is served for a run that cannot start.
    expect(algo.stderr).not.toMatch(/dashboard:/);
    expect(schedule.stderr).not.toMatch(/dashboard:/);
    expect(schedule.code).toBe(1);
    expect(schedule.stderr).toMatch(/horizon "x" is not a positive integer/);
    expect(preset.code).toBe(1);
    expect(preset.stderr).toMatch(/unknown preset "nope"; expected one of babyai-start/);
    expect(noSteps.code).toBe(1);
    expect(noSteps.stderr).toMatch(/required option '--steps <n>' not specified \(or give --preset\)/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/CKPT_MISSING: no checkpoint at .*nowhere/);
    expect(actionsOnly.code).toBe(1);
    expect(actionsOnly.stderr).toMatch(/historyActionsOnly needs a number of history turns/);
    expect(forms.code).toBe(1);
    expect(forms.stderr).toMatch(/copyWordForms needs instructionCopy/);
    const manifest = path.join(dir, 'run', 'checkpoint', 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/"sha256": "[0-9a-f]{4}/, '"sha256": "0000'));
    const corrupt = await runCli(['rollout', '--env', 'babyai', '--agent', `checkpoint:${path.join(dir, 'run')}`, '--episodes', '1']);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(/CKPT_CORRUPT: .*\.(bin|json) fails its checksum/);
  }, 180_000);
});
