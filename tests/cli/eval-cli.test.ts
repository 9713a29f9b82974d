/** `actorgym eval` through the real entry point (issue 23): results.json fields, resume, help. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFaultServer } from '../../bench/chat-fault-server.ts';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-eval-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('actorgym eval', () => {
  it('prints the results.json object, and re-running the same command runs nothing', async () => {
    const out = path.join(dir, 'babyai-random');
    const args = ['eval', '--agent', 'random', '--env', 'babyai', '--samples', '2', '--tasks', '6', '--horizon', '5', '--out', out, '--json'];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    const results = JSON.parse(first.stdout);
    for (const field of ['env', 'split', 'agent', 'n', 'tasks', 'avgAtN', 'passAtK', 'categories', 'outcomes', 'missing', 'tokens', 'wallSeconds', 'seed', 'horizon']) {
      expect(results).toHaveProperty(field);
    }
    expect(results).toMatchObject({ env: 'babyai', split: 'test', agent: 'random', n: 2, tasks: 6, complete: true, missing: 0, tokens: null, horizon: 5 });
    expect(Object.keys(results.passAtK)).toEqual(['1', '2']);
    // Issue 39: six tasks below the split are taken round-robin over the level families, one of each
    // (the split's first six were five GoToRedBallGrey seeds and one GoToRedBall, all GoTo).
    expect(Object.values(results.categories as Record<string, { tasks: number }>).map((c) => c.tasks)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'))).toEqual(results);
    expect(readFileSync(path.join(out, 'episodes.jsonl'), 'utf8').trim().split('\n')).toHaveLength(12);

    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already complete; nothing was run/);
    expect(JSON.parse(again.stdout)).toEqual(results);
    expect(readFileSync(path.join(out, 'episodes.jsonl'), 'utf8').trim().split('\n')).toHaveLength(12);

    const human = await runCli(args.slice(0, -1));
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/Agent\s+Metric\s+GoTo\s+Pickup\s+ActionObjDoor\s+FindObjS7\s+OneRoomS20\s+SynthLoc\s+Overall/);
    expect(human.stdout).toMatch(/random\s+Avg@2/);

    const mixed = await runCli(['eval', '--agent', 'random', '--env', 'babyai', '--samples', '3', '--tasks', '6', '--horizon', '5', '--out', out]);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(/EVAL_CONFIG_MISMATCH: .* \(n: 2 → 3\)/);
  }, 120_000);

  it('leaves aborted pairs missing (exit 1, never failures), and a re-run finishes them with the LLM tokens counted', async () => {
    const out = path.join(dir, 'babyai-llm');
    // One endpoint, down (500) for the first session and up for the second: a resumed evaluation
    // must keep its base URL (issue 39).
    let down = true;
    let failedRequests = 0;
    const server = await startFaultServer({
      content: () => 'Thought: the ball is ahead.\nAction: move forward',
      script: () => {
        if (!down) return { kind: 'ok' };
        failedRequests += 1;
        return { kind: 'status', status: 500 };
      },
    });
    try {
      const args = (baseURL: string) => ['eval', '--agent', 'openai:m', '--env', 'babyai', '--samples', '2', '--tasks', '2', '--horizon', '3',
        '--base-url', baseURL, '--api-key', 'k', '--llm-retries', '0', '--max-retries', '0', '--out', out, '--json'];
      const failed = await runCli(args(server.baseURL));
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/warning: 4 \(task, sample\) pairs have no result \(4 aborted by infrastructure\)/);
      expect(JSON.parse(failed.stdout)).toMatchObject({ complete: false, missing: 4, outcomes: { success: 0, failure: 0, truncated: 0, aborted: 4 } });

      down = false;
      const resumed = await runCli(args(server.baseURL));
      expect(resumed.code, resumed.stderr).toBe(0);
      const results = JSON.parse(resumed.stdout);
      expect(results).toMatchObject({ agent: 'openai:m', complete: true, missing: 0, outcomes: { aborted: 0 } });
      // Both sessions' calls: the first one's failed, the second one's answered.
      expect(results.tokens).toMatchObject({ calls: server.chatRequests, failedCalls: failedRequests, promptTokens: expect.any(Number), completionTokens: expect.any(Number) });
      const records = readFileSync(path.join(out, 'episodes.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(records.filter((r) => r.outcome === 'aborted')).toHaveLength(4); // the first session's, kept for the record
      const turn = records.find((r) => r.outcome !== 'aborted').trajectory[0];
      expect(turn).toMatchObject({ action: 'move forward', usage: { reply: expect.stringMatching(/^Thought:/) } });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('lists the agent forms in --help and asks for an agent', async () => {
    const [help, noAgent] = await Promise.all([runCli(['eval', '--help']), runCli(['eval', '--env', 'babyai'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/random\s+\|\s+oracle\s+\|\s+checkpoint:DIR\s+\|\s+openai:MODEL/);
    expect(help.stdout).toMatch(/--samples <n>/);
    expect(help.stdout).toMatch(/--base-url <url>/);
    expect(noAgent.code).toBe(1);
    expect(noAgent.stderr).toMatch(/give --agent/);
  });
});
