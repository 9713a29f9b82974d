import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSftSystem, type SftOptions } from '../../actors/sft-system.ts';
import { loadCheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import { getEnv } from '../../envs/index.ts';
import { metricLines } from './metric-lines.ts';
import { MetricSeries } from '../../dashboard/server/metric-series.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';

// `actorgym sft` end to end on a handful of BabyAI oracle demos: metrics per epoch, a checkpoint
// that loads as an agent, and an exact resume (stop after epoch 1, resume to 3 = 3 in one go).
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-sft-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const demos = path.join(dir, 'demos.jsonl');

beforeAll(async () => {
  const def = getEnv('babyai');
  const lines: string[] = [];
  for (const [i, taskId] of def.tasks('train').slice(0, 12).entries()) {
    const env = def.make();
    let { observation, info } = await env.reset({ taskId, seed: i });
    const oracle = def.oracle!(env);
    const turns = [];
    let outcome = 'truncated';
    for (let t = 0; t < 12; t++) {
      const action = await oracle.next();
      const step = await env.step(action);
      turns.push({ observation, availableActions: info.availableActions, action, reward: step.reward });
      ({ observation, info } = step);
      if (step.terminated) {
        outcome = step.info.success === true ? 'success' : 'failure';
        break;
      }
    }
    lines.push(JSON.stringify({ format: 'actorgym-demo', version: 1, env: 'babyai', split: 'train', taskId, sample: 0, agent: 'oracle', seed: i, episodeId: `e${i}`, outcome, reward: 1, turns, finalObservation: observation }));
    await env.close();
  }
  writeFileSync(demos, `${lines.join('\n')}\n`);
});

const base: SftOptions = {
  env: 'babyai', demos: [], backend: 'wasm', learnerThreads: 1, epochs: 3, minibatch: 8, evalEvery: 0, evalEpisodes: 4, validationShare: 0.25,
  corpusTasks: 8, seed: 1, historyTurns: 0, instructionTokens: 24, model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64 },
};

describe('sft system', () => {
  it('trains epoch by epoch, validates on held-out tasks, and writes a checkpoint an agent loads', async () => {
    const out = path.join(dir, 'whole');
    const system = createSftSystem({ ...base, demos: [demos], out });
    const events: TrainingEvent[] = [];
    system.events.subscribe((e) => events.push(e));
    const summary = await system.run();
    // The dashboard charts an SFT run from its event stream: one row per epoch, with the validation loss.
    const series = new MetricSeries(() => 0);
    for (const e of events) series.apply(e as unknown as Parameters<MetricSeries["apply"]>[0]);
    expect(series.all().map((r) => r.step)).toEqual([1, 2, 3]);
    expect(series.all().every((r) => typeof r.valLoss === 'number' && typeof r.loss === 'number')).toBe(true);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['training.started', 'learner.stepped', 'checkpoint.saved', 'evaluation.finished', 'training.finished']));
    expect(summary).toMatchObject({ status: 'done', epochs: 3, fromEpoch: 0 });
    expect(summary.demos.validation).toBeGreaterThan(0);
    const successes = readFileSync(demos, 'utf8').trim().split('\n').filter((l) => l.includes('"outcome":"success"')).length;
    expect(summary.demos.read).toBe(12);
    expect(summary.demos.trained + summary.demos.validation + summary.demos.skipped).toBe(successes);
    const lines = metricLines(out);
    expect(lines.map((m) => m.step)).toEqual([1, 2, 3]);
    expect(lines[2]!.loss).toBeLessThan(lines[0]!.loss!);
    expect(Number.isFinite(lines[2]!.valLoss)).toBe(true);
    // Evaluated at the last epoch only, on 4 test episodes: its successes over the scored ones.
    expect(summary.evaluation).toMatchObject({ split: 'test', episodes: 4 });
    const { success, aborted } = summary.evaluation!.outcomes;
    expect(aborted).toBeLessThan(4);
    expect(lines[2]!.testSuccessRate).toBe(success / (4 - aborted));
    expect(summary.testSuccessRate).toBe(lines[2]!.testSuccessRate);
    expect(lines[0]!.testSuccessRate).toBeUndefined();
    const agent = await loadCheckpointAgent(out);
    expect(agent.step).toBe(3);
    expect(agent.config.historyTurns).toBe(0);
    agent.dispose();
  });

  it('resumes at the next epoch exactly, and refuses other demos', async () => {
    const out = path.join(dir, 'parted');
    const first = createSftSystem({ ...base, demos: [demos], out });
    first.events.subscribe((e) => {
      if (e.type === 'learner.stepped' && e.step === 1) first.stop('test');
    });
    expect(await first.run()).toMatchObject({ status: 'stopped', epochs: 1 });
    const resumed = await createSftSystem({ ...base, demos: [demos], resume: out }).run();
    expect(resumed).toMatchObject({ status: 'done', epochs: 3, fromEpoch: 1 });
    const strip = (m: Record<string, number>) => ({ step: m.step, loss: m.loss, valLoss: m.valLoss, testSuccessRate: m.testSuccessRate });
    expect(metricLines(out).map(strip)).toEqual(metricLines(path.join(dir, 'whole')).map(strip));
    expect(readFileSync(path.join(out, 'checkpoint', 'weights.bin')).equals(readFileSync(path.join(dir, 'whole', 'checkpoint', 'weights.bin')))).toBe(true);

    const other = path.join(dir, 'other.jsonl');
    writeFileSync(other, readFileSync(demos, 'utf8').split('\n').slice(1).join('\n'));
    await expect(createSftSystem({ ...base, demos: [other], resume: out }).run()).rejects.toThrow(/demos differ/);
  });

  it('says what is wrong with bad settings and demo files', async () => {
    expect(() => createSftSystem({ ...base, demos: [demos], epochs: 0 })).toThrow(/epochs must be an integer ≥ 1/);
    expect(() => createSftSystem({ ...base, demos: [demos], validationShare: 1 })).toThrow(/validationShare/);
    const foreign = path.join(dir, 'foreign.jsonl');
    writeFileSync(foreign, readFileSync(demos, 'utf8').replaceAll('"env":"babyai"', '"env":"textcraft"'));
    await expect(createSftSystem({ ...base, demos: [foreign] }).run()).rejects.toThrow(/env "textcraft", not "babyai"/);
  });
});
