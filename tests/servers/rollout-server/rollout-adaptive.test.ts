/**
 * Issue 38: the adaptive curriculum runs in the rollout service, one per trainer run id, fed by
 * each finished batch's outcome and clocked by the trainer's step. The horizons the service uses
 * are compared with the curriculum actor driven directly by the same steps' stats (computed here
 * from the `done` summaries' per-episode results, not by the service's code); two runs do not
 * see each other; a missing `run`, a step going backwards and another schedule are 400s naming
 * the field; a cancelled batch feeds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdaptiveRunCurricula } from '../../../actors/rollout-service/run-curricula.ts';
import { createCurriculumActor } from '../../../actors/curriculum.actor.ts';
import { parseSchedule, type Schedule } from '../../../machines/schedule.ts';
import type { RolloutServer } from '../../../servers/rollout-server/rollout-server.ts';
import type { ScriptedServer } from '../../policy/llm/scripted-completions-server.ts';
import { policyOf, postBatch, startBabyAiScripted, startDelayProxy, startService, type DelayProxy } from './service-fixture.ts';

// window=2: the second step at a horizon decides; trunc=0.5: all-truncated steps raise by 2.
const SCHEDULE = 'adaptive:min=2,max=6,step=2,window=2,trunc=0.5';

let llm: ScriptedServer;
let proxy: DelayProxy;
let service: RolloutServer;
beforeAll(async () => {
  llm = await startBabyAiScripted();
  proxy = await startDelayProxy(llm.baseURL, 150);
  service = await startService({ curricula: new AdaptiveRunCurricula(), maxConcurrency: 4 });
});
afterAll(async () => {
  await service.close();
  await proxy.close();
  await llm.close();
});

const ask = (run: string | undefined, step: number, offset = 0, baseUrl = llm.baseURL) => ({
  env: 'babyai', count: 2, offset, groupSize: 2, curriculum: { schedule: SCHEDULE, step, ...(run !== undefined ? { run } : {}) }, policy: policyOf(baseUrl),
});

interface Result { outcome: string; turns: number }
interface Done { type: string; horizon: number; summary: { results: Result[] }; curriculum: { run: string; step: number; fed: boolean; decision?: { step: number; to: number; decision: string } } }

async function done(body: unknown): Promise<Done> {
  const reply = await postBatch(service.url, body);
  expect(reply.status, reply.body).toBe(200);
  const last = reply.lines.at(-1) as unknown as Done;
  expect(last.type, JSON.stringify(last)).toBe('done');
  return last;
}

/** A step's stats from its batches' per-episode results, by their definitions (docs/curriculum.md). */
function statsOf(batches: readonly Done[], tasks: number): Record<string, number> {
  const results = batches.flatMap((b) => b.summary.results).filter((r) => r.outcome !== 'aborted');
  const wins = results.filter((r) => r.outcome === 'success');
  const share = (outcome: string) => results.filter((r) => r.outcome === outcome).length / results.length;
  return {
    successRate: share('success'), truncationRate: share('truncated'),
    meanTurns: results.reduce((a, r) => a + r.turns, 0) / results.length,
    ...(wins.length > 0 ? { successTurns: wins.reduce((a, r) => a + r.turns, 0) / wins.length } : {}),
    episodes: results.length, aborted: 0, groups: tasks,
  };
}

const refusal = async (body: unknown) => {
  const reply = await postBatch(service.url, body);
  return { status: reply.status, error: (JSON.parse(reply.body) as { error: { message: string; field?: string } }).error };
};

describe('the adaptive curriculum in the rollout service', () => {
  it('moves the horizon as the curriculum actor fed the same stats does, pooling the batches of a step', async () => {
    const schedule = (parseSchedule(SCHEDULE) as { ok: true; value: Schedule }).value;
    const reference = createCurriculumActor({ schedule });
    const steps: Done[][] = [];
    for (let step = 1; step <= 5; step += 1) {
      // Step 1 is two batches (two GRPO group sets), pooled into one decision.
      const batches = step === 1 ? [await done(ask('a', 1, 0)), await done(ask('a', 1, 2))] : [await done(ask('a', step))];
      steps.push(batches);
      for (const batch of batches) {
        expect(batch.horizon).toBe(reference.getSnapshot().context.horizon);
        expect(batch.curriculum).toMatchObject({ run: 'a', step, fed: true });
        const want = reference.getSnapshot().context.lastDecision;
        if (want === null) expect(batch.curriculum.decision).toBeUndefined();
        else expect(batch.curriculum.decision).toMatchObject({ step: want.step, to: want.to, decision: want.decision, reason: want.reason });
      }
      reference.send({ type: 'LEARNER.STEPPED', step, metrics: statsOf(batches, 2 * batches.length) });
    }
    // Two turns of BabyAI with the scripted moves never reach the goal: every episode truncated, so the horizon is raised.
    expect(steps[0]!.flatMap((b) => b.summary.results).every((r) => r.outcome === 'truncated')).toBe(true);
    expect(steps.map((batches) => batches[0]!.horizon)).toEqual([2, 2, 4, 4, 6]);
    expect(steps[2]![0]!.curriculum.decision).toMatchObject({ step: 2, decision: 'raise', to: 4 });
  }, 20_000);

  it('keeps each run apart, and refuses a missing run, a step backwards and a changed schedule naming the field', async () => {
    // Run "a" is at step 5 after the test above; run "b" starts at the minimum.
    const b = await done(ask('b', 1));
    expect(b).toMatchObject({ horizon: 2, curriculum: { run: 'b', step: 1 } });
    expect(b.curriculum.decision).toBeUndefined();
    expect(await refusal(ask(undefined, 1))).toMatchObject({ status: 400, error: { field: 'curriculum.run', message: expect.stringContaining('run') } });
    expect(await refusal(ask('a', 3))).toMatchObject({ status: 400, error: { field: 'curriculum.step', message: expect.stringContaining('step 3 is before step 5') } });
    const other = { ...ask('a', 6), curriculum: { schedule: 'adaptive:min=2,max=8', step: 6, run: 'a' } };
    expect(await refusal(other)).toMatchObject({ status: 400, error: { field: 'curriculum.schedule' } });
    // Refused requests moved nothing: run "a" still decides step 5 when step 6 comes.
    const a6 = await done(ask('a', 6));
    expect(a6.curriculum.decision).toMatchObject({ step: 5 });
  }, 20_000);

  it('a cancelled batch feeds nothing', async () => {
    expect((await done(ask('c', 1))).horizon).toBe(2);
    // Step 2's only batch is cancelled; had it been fed, window 2 would be full and the horizon raised to 4.
    const res = await fetch(`${service.url}/v1/rollouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ask('c', 2, 0, proxy.baseURL)) });
    const id = res.headers.get('x-rollout-id')!;
    expect((await fetch(`${service.url}/v1/rollouts/${id}`, { method: 'DELETE' })).status).toBe(204);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(lines.at(-1)).toMatchObject({ type: 'error' });
    const c3 = await done(ask('c', 3));
    expect(c3.horizon).toBe(2);
    expect(c3.curriculum.decision).toMatchObject({ step: 1, decision: 'hold' });
  }, 20_000);
});
