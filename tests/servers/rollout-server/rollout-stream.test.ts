/**
 * Issue 38: the rollout service's stream against the scripted completions server. Every requested
 * episode comes back once as a token record that TokenRecordSchema accepts, groups are the task's
 * index in the split with samples 0..G-1, and the stream is started, records, done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEnv } from '../../../envs/index.ts';
import { TokenRecordSchema, type TokenRecord } from '../../../demos/token-record.ts';
import type { RolloutServer } from '../../../servers/rollout-server/rollout-server.ts';
import type { ScriptedServer } from '../../policy/llm/scripted-completions-server.ts';
import { policyOf, postBatch, startBabyAiScripted, startService } from './service-fixture.ts';

let llm: ScriptedServer;
let service: RolloutServer;
beforeAll(async () => {
  llm = await startBabyAiScripted();
  service = await startService();
});
afterAll(async () => {
  await service.close();
  await llm.close();
});

const train = getEnv('babyai').tasks('train');

describe('POST /v1/rollouts', () => {
  it('streams started, one valid token record per requested episode in GRPO groups, then done', async () => {
    const reply = await postBatch(service.url, { env: 'babyai', count: 3, offset: 2, groupSize: 4, horizon: 3, seed: 7, concurrency: 5, policy: policyOf(llm.baseURL) });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/x-ndjson');
    const id = reply.headers.get('x-rollout-id');
    expect(reply.lines[0]).toEqual({ type: 'started', id, episodes: 12 });
    const last = reply.lines.at(-1)!;
    expect(last.type).toBe('done');
    const records = reply.lines.slice(1, -1).map((line) => {
      expect(line.type).toBe('record');
      return TokenRecordSchema.parse(line.record) as TokenRecord;
    });
    expect(records).toHaveLength(12);
    expect(new Set(records.map((r) => r.episodeId)).size).toBe(12);
    const pairs = records.map((r) => `${r.taskId}/${r.group}/${r.sample}`).sort();
    const expected = [2, 3, 4].flatMap((g) => [0, 1, 2, 3].map((s) => `${train[g]}/${g}/${s}`)).sort();
    expect(pairs).toEqual(expected);
    for (const r of records) {
      expect(r.split).toBe('train');
      expect(r.horizon).toBe(3);
      expect(r.turns.length).toBeLessThanOrEqual(3);
      expect(r.mask.filter((m) => m === 1).length).toBe(r.turns.reduce((n, t) => n + t.responseIds.length, 0));
      expect(r.episodeId.startsWith(`${id}-s`)).toBe(true);
    }
    const summary = last.summary as { slots: number; episodes: number; outcomes: { aborted: number } };
    expect(summary).toMatchObject({ slots: 12, episodes: 12, outcomes: { aborted: 0 } });
  });

  it('runs named tasks of the test split; the same seed starts the same episodes (turn 0 prompts)', async () => {
    const test = getEnv('babyai').tasks('test');
    const body = { env: 'babyai', split: 'test', tasks: [test[5], test[1]], groupSize: 2, horizon: 2, seed: 3, policy: policyOf(llm.baseURL) };
    const [a, b] = [await postBatch(service.url, body), await postBatch(service.url, body)];
    const strip = (lines: Record<string, unknown>[]) => lines.filter((l) => l.type === 'record').map((l) => {
      const { episodeId: _, ...rest } = l.record as TokenRecord;
      return rest;
    }).sort((x, y) => `${x.group}/${x.sample}`.localeCompare(`${y.group}/${y.sample}`));
    expect(strip(a.lines)).toHaveLength(4);
    expect(strip(a.lines).map((r) => [r.taskId, r.group])).toEqual([[test[1], 1], [test[1], 1], [test[5], 5], [test[5], 5]]);
    // The scripted replies follow the server's request count, so only the envs' first views must match.
    expect(strip(a.lines).map((r) => r.turns[0]!.promptIds)).toEqual(strip(b.lines).map((r) => r.turns[0]!.promptIds));
  });

  it('passes policy.topP through to every LLM request as top_p, and sends none without it', async () => {
    const sent = (from: number) => llm.requests.slice(from).map((r) => r.body.top_p);
    let from = llm.requests.length;
    const nucleus = await postBatch(service.url, { env: 'babyai', count: 1, groupSize: 2, horizon: 2, policy: { ...policyOf(llm.baseURL), topP: 0.37 } });
    expect(nucleus.lines.at(-1)).toMatchObject({ type: 'done' });
    expect(sent(from).length).toBeGreaterThan(0);
    expect(new Set(sent(from))).toEqual(new Set([0.37]));
    from = llm.requests.length;
    await postBatch(service.url, { env: 'babyai', count: 1, horizon: 2, policy: policyOf(llm.baseURL) });
    expect(new Set(sent(from))).toEqual(new Set([undefined]));
  });

  it('uses the horizon a scaling curriculum gives at the trainer\'s step, and refuses an adaptive one', async () => {
    const at = async (step: number) => {
      const reply = await postBatch(service.url, { env: 'babyai', count: 1, curriculum: { schedule: 'scaling:[2,4,6]@10', step }, policy: policyOf(llm.baseURL) });
      return (reply.lines[1]!.record as TokenRecord).horizon;
    };
    expect([await at(1), await at(10), await at(11), await at(25), await at(99)]).toEqual([2, 2, 4, 6, 6]);
    const adaptive = await postBatch(service.url, { env: 'babyai', count: 1, curriculum: { schedule: 'adaptive:min=2,max=6', step: 3 }, policy: policyOf(llm.baseURL) });
    expect(adaptive.status).toBe(400);
    expect(JSON.parse(adaptive.body).error).toMatchObject({ field: 'curriculum.schedule', message: expect.stringContaining('adaptive') });
  });
});
