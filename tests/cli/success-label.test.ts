/**
 * Issue 40, finding 7: with most episodes aborted (servers down past --server-wait), the run
 * exited 1 while its printed success rate, over the few episodes that finished, read like the
 * agent's. Past --max-aborted the rate is now labelled as over scored episodes only, beside the
 * share never scored; --json keeps `successRate` and adds `maxAborted: {limit, exceeded}`.
 *
 * The agent is an openai: endpoint of this test that answers its first calls and then fails
 * (503), so some episodes are scored and the rest aborted, one at a time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { TrainingSummary } from '../../actors/index.ts';
import { printTrainingSummary } from '../../cli/commands/train-action.ts';
import { runCli } from './run-cli.ts';

const endpoints: http.Server[] = [];
afterAll(() => {
  for (const server of endpoints) server.close();
});

/** An OpenAI-compatible endpoint that answers `good` calls, then answers 503. */
async function flakyEndpoint(good: number): Promise<string> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls += 1;
      if (calls > good) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
      const body = { id: `c${calls}`, object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'go forward' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  endpoints.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const args = (baseUrl: string) => ['rollout', '--env', 'babyai', '--agent', 'openai:m', '--base-url', baseUrl, '--api-key', 'k', '--episodes', '8', '--concurrency', '1',
  '--llm-concurrency', '1', '--horizon', '1', '--max-retries', '0', '--llm-retries', '0'];

describe('the success rate of a run over its abort budget (issue 40, finding 7)', () => {
  it('is labelled as over scored episodes only, beside the share never scored', async () => {
    const [table, json] = await Promise.all([runCli(args(await flakyEndpoint(3))), runCli([...args(await flakyEndpoint(3)), '--json'])]);
    expect(table.code, table.stderr).toBe(1);
    expect(table.stderr).toMatch(/actorgym: error: 62\.5% of task slots have no scored outcome \(5 of 8; aborted attempts: .*\), over --max-aborted 5\.0%/);
    const [header, , row] = table.stdout.split('\n').slice(1, 4).map((line) => line.trim().split(/\s{2,}/));
    expect(header?.slice(0, 3)).toEqual(['episodes', 'success rate (scored only)', 'never scored']);
    expect(row?.[2]).toBe('62.5% of 8');

    expect(json.code, json.stderr).toBe(1);
    const summary = JSON.parse(json.stdout) as { successRate: number; abortedShare: number; maxAborted: unknown; outcomes: { aborted: number } };
    expect(summary.maxAborted).toEqual({ limit: 0.05, exceeded: true });
    expect(summary.abortedShare).toBe(5 / 8);
    expect(summary.outcomes.aborted).toBe(5);
  }, 120_000);

  it('keeps the plain label within the budget', async () => {
    const ok = await runCli([...args(await flakyEndpoint(100)), '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).maxAborted).toEqual({ limit: 0.05, exceeded: false });
    const table = await runCli(args(await flakyEndpoint(100)));
    expect(table.stdout).toMatch(/episodes +success rate +mean reward/);
    expect(table.stdout).not.toMatch(/scored only|never scored/);
  }, 120_000);

  it('train labels its test success rate the same way past --max-aborted', () => {
    const summary = {
      env: 'babyai', algo: 'grpo', steps: 2, status: 'done', fromStep: 0, backend: 'wasm', trainSeconds: 3,
      lastMetrics: { successRate: 0.5, loss: 0.1 }, testSuccessRate: 0.8, testMeanReward: 0.7, testMeanTurns: 4,
      evaluation: { slots: 90, abortedShare: 0.5 },
    } as unknown as TrainingSummary;
    const printed = (scoredOnly: boolean) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        printTrainingSummary(summary, { scoredOnly });
        return log.mock.calls.map((call) => String(call[0])).join('\n');
      } finally {
        log.mockRestore();
      }
    };
    expect(printed(true)).toMatch(/test success rate \(scored only\) +test never scored[\s\S]*80\.0% +50\.0% of 90/);
    expect(printed(false)).toMatch(/last step loss +test success rate +test mean reward/);
  });
});
