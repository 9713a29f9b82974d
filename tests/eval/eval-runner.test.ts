/** The evaluation harness (issue 23): files, resume, refusal of a mixed directory. */
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EvalEpisodeRecord } from '../../eval/eval-record.ts';
import { runEvaluation, type RunEvaluationOptions } from '../../eval/run-eval.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { getEnv, type EnvDefinition } from '../../envs/index.ts';

const root = mkdtempSync(path.join(tmpdir(), 'actorgym-eval-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// One task of every BabyAI level (18 tasks, all six families), so categories are exercised.
const babyai = getEnv('babyai');
const everyLevel: EnvDefinition = { ...babyai, tasks: (split) => babyai.tasks(split).filter((_, i) => i % 5 === 0) };
const base = { env: everyLevel, agent: 'random', samples: 3, seed: 7, horizon: 4, concurrency: 4 } as const satisfies Partial<RunEvaluationOptions>;

const lines = (dir: string): EvalEpisodeRecord[] =>
  readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as EvalEpisodeRecord);

/** Per (task, sample): what the result was, and the whole trajectory. */
function resultsOf(dir: string) {
  return lines(dir)
    .filter((r) => r.outcome !== 'aborted')
    .map((r) => ({ pair: `${r.taskId}#${r.sample}`, id: r.episodeId, outcome: r.outcome, reward: r.reward, actions: r.trajectory.map((t) => t.action) }))
    .sort((a, b) => a.pair.localeCompare(b.pair));
}

const whole = path.join(root, 'whole');
const uninterrupted = runEvaluation({ ...base, out: whole });

describe('runEvaluation', () => {
  it('writes config, episodes and results with Avg@n and Pass@k overall and per category', async () => {
    const run = await uninterrupted;
    expect(run).toMatchObject({ ran: 54, resumedFrom: 0, alreadyComplete: false, cutBytes: 0 });
    expect(readdirSync(whole).sort()).toEqual(['config.json', 'episodes.jsonl', 'results.json', 'results.md']);
    const results = JSON.parse(readFileSync(path.join(whole, 'results.json'), 'utf8'));
    expect(results).toEqual(run.results);
    expect(results).toMatchObject({ env: 'babyai', split: 'test', agent: 'random', n: 3, tasks: 18, complete: true, missing: 0, tokens: null, seed: 7, horizon: 4 });
    expect(Object.keys(results.passAtK)).toEqual(['1', '2', '3']);
    expect(results.avgAtN).toBeCloseTo(results.passAtK['1'], 12);
    expect(Object.keys(results.categories)).toEqual(['GoTo', 'Pickup', 'ActionObjDoor', 'FindObjS7', 'OneRoomS20', 'SynthLoc']);
    expect(results.categories.GoTo).toMatchObject({ tasks: 11, samples: 33 });
    const { success, failure, truncated, aborted } = results.outcomes;
    expect([success + failure + truncated, aborted]).toEqual([54, 0]);
    expect(results.meanScore).toBeUndefined(); // BabyAI reports no score
    // Every episode, with its trajectory, one JSON line each; ids and seeds follow (task, sample).
    const records = lines(whole);
    expect(records).toHaveLength(54);
    const first = records.find((r) => r.taskId === 'GoToRedBall/0' && r.sample === 2);
    // GoToRedBall/0 is index 1 of this 18-task split, so its sample 2 is slot 2 × 18 + 1.
    expect(first).toMatchObject({ episodeId: 'eval-7-s37a0', category: 'GoTo', attempt: 0 });
    expect(first?.trajectory[0]).toMatchObject({ action: expect.any(String), observation: expect.any(String), reward: expect.any(Number) });
    expect(readFileSync(path.join(whole, 'results.md'), 'utf8')).toMatch(/\| Agent \| Metric \| GoTo \| Pickup \|.*\| Overall \|\n\|[- |:]+\|\n\| random \| Avg@3 \|/);
  });

  it('gives what one uninterrupted run gives when resumed after a limit or a stop', async () => {
    const limited = path.join(root, 'limited');
    const part = await runEvaluation({ ...base, out: limited, maxEpisodes: 20 });
    expect(part).toMatchObject({ ran: 20, resumedFrom: 0 });
    expect(part.results).toMatchObject({ complete: false, missing: 34 });
    const rest = await runEvaluation({ ...base, out: limited });
    expect(rest).toMatchObject({ ran: 34, resumedFrom: 20, alreadyComplete: false });
    expect(resultsOf(limited)).toEqual(resultsOf(whole));
    expect({ ...rest.results, wallSeconds: 0 }).toEqual({ ...(await uninterrupted).results, wallSeconds: 0 });

    // Stopped mid-run: running episodes end as cancelled, which is missing, not failure.
    const stopped = path.join(root, 'stopped');
    const controller = new AbortController();
    const cut = await runEvaluation({
      ...base,
      out: stopped,
      concurrency: 2,
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done === 9) controller.abort();
      },
    });
    expect(cut.results.complete).toBe(false);
    expect(cut.results.missing).toBeGreaterThan(0);
    // Issue 39: the stopped episodes are cancelled, not aborted by infrastructure.
    expect(cut.results.outcomes.cancelled).toBeGreaterThan(0);
    expect(cut.results.outcomes.aborted).toBe(0);
    expect(cut.results.cancelledAttempts).toBe(cut.results.outcomes.cancelled);
    expect(lines(stopped).some((r) => r.outcome === 'aborted' && r.abortReason === 'cancelled')).toBe(true);
    await runEvaluation({ ...base, out: stopped });
    expect(resultsOf(stopped)).toEqual(resultsOf(whole));
  });

  it('does not re-run a finished evaluation', async () => {
    await uninterrupted;
    const before = readFileSync(path.join(whole, 'episodes.jsonl'), 'utf8');
    const again = await runEvaluation({ ...base, out: whole });
    expect(again).toMatchObject({ ran: 0, alreadyComplete: true });
    expect(again.results).toEqual((await uninterrupted).results);
    expect(readFileSync(path.join(whole, 'episodes.jsonl'), 'utf8')).toBe(before);
  });

  it('refuses a directory that holds another evaluation', async () => {
    await uninterrupted;
    await expect(runEvaluation({ ...base, out: whole, samples: 2 })).rejects.toMatchObject({
      code: 'EVAL_CONFIG_MISMATCH',
      message: expect.stringMatching(/n: 3 → 2/),
    });
    await expect(runEvaluation({ ...base, out: whole, agent: 'oracle' })).rejects.toMatchObject({ code: 'EVAL_CONFIG_MISMATCH', message: expect.stringMatching(/agent: "random" → "oracle"/) });
  });

  it('tolerates a half-written last line left by a killed process', async () => {
    const killed = path.join(root, 'killed');
    await runEvaluation({ ...base, out: killed, maxEpisodes: 10 });
    const cutLine = '{"episodeId":"eval-7-s3a0","taskId":"GoToRedBall';
    appendFileSync(path.join(killed, 'episodes.jsonl'), cutLine);
    const resumed = await runEvaluation({ ...base, out: killed });
    expect(resumed).toMatchObject({ ran: 44, resumedFrom: 10, cutBytes: cutLine.length });
    expect(resultsOf(killed)).toEqual(resultsOf(whole));
  });

  it('with n = 1 runs the episodes `rollout` runs with the same seed', async () => {
    const single = await runEvaluation({ ...base, samples: 1, out: path.join(root, 'single') });
    const rollout = await createRolloutSystem({ env: everyLevel, agent: 'random', seed: 7, schedule: 'fixed:4' }).run();
    const fromEval = resultsOf(path.join(root, 'single')).map(({ pair, outcome, reward }) => ({ taskId: pair.split('#')[0], outcome, reward }));
    expect(fromEval).toEqual(rollout.results.map(({ taskId, outcome, reward }) => ({ taskId, outcome, reward })).sort((a, b) => a.taskId.localeCompare(b.taskId)));
    expect(single.results.avgAtN).toBeCloseTo(rollout.successRate, 12);
  });

  it('reports SciWorld\'s own 0–100 score, per category too, and runs the oracle through the score tap', async () => {
    const sciworld = getEnv('sciworld');
    const five: EnvDefinition = { ...sciworld, tasks: (split) => sciworld.tasks(split).filter((_, i) => i % 40 === 0) };
    const oracle = await runEvaluation({ env: five, agent: 'oracle', samples: 2, seed: 1, out: path.join(root, 'sci-oracle') });
    expect(oracle.results).toMatchObject({ avgAtN: 1, meanScore: 100, outcomes: { success: 10 } });
    expect(Object.keys(oracle.results.categories)).toEqual(['Measure', 'Test-Conductivity', 'Find']);
    const random = await runEvaluation({ env: five, agent: 'random', samples: 2, seed: 1, out: path.join(root, 'sci-random') });
    const records = lines(path.join(root, 'sci-random'));
    // SciWorld's rewards are score changes / 100, so the final score is the summed reward × 100.
    for (const record of records) expect(record.score).toBeCloseTo(100 * record.reward, 9);
    const mean = records.reduce((sum, r) => sum + (r.score ?? NaN), 0) / records.length;
    expect(random.results.meanScore).toBeCloseTo(mean, 9);
  });
});
