/**
 * Issue 39, item 6, through the real entry point: a dead endpoint stops `eval` early with its
 * cause on stderr; a resumed evaluation refuses a changed agent option; a SIGKILLed evaluation
 * resumed keeps its call and token totals equal to its turns; a password in the base URL is
 * sent as a Basic header and never written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFaultServer } from '../../bench/chat-fault-server.ts';
import { runCli } from './run-cli.ts';
import { spawnCli } from './spawn-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-eval-llm-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const reply = () => 'Thought: ahead.\nAction: move forward';
const evalArgs = (out: string, baseURL: string, extra: readonly string[] = []) =>
  ['eval', '--agent', 'openai:m', '--env', 'babyai', '--samples', '2', '--tasks', '3', '--horizon', '3', '--base-url', baseURL, '--out', out, '--json', ...extra];

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { trajectory: { usage?: { promptTokens: number; completionTokens: number } }[]; llm?: { calls: number } });

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('actorgym eval with an LLM agent (issue 39)', () => {
  it('stops early on a dead endpoint with the cause on stderr, and never writes a password from the base URL', async () => {
    const port = await closedPort();
    const out = path.join(dir, 'dead');
    const result = await runCli(evalArgs(out, `http://alice:s3cretpw@127.0.0.1:${port}/v1`, ['--samples', '8', '--tasks', '10', '--concurrency', '2', '--llm-retries', '2', '--record', path.join(dir, 'dead.jsonl')]));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/LLM_UNREACHABLE: .*ECONNREFUSED/);
    expect(result.stderr).toMatch(/stopped: the evaluation cannot go on/);
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    // Stopped at the first call whose retries reached nothing, not 80 pairs through every retry.
    expect(results.tokens.calls).toBeLessThanOrEqual(4);
    expect(results.avgAtN).toBeNull();
    expect(results.outcomes.cancelled + results.outcomes.aborted).toBeGreaterThan(0);
    for (const file of [path.join(out, 'episodes.jsonl'), path.join(out, 'config.json'), path.join(out, 'results.json'), path.join(dir, 'dead.jsonl')]) {
      if (existsSync(file)) expect(readFileSync(file, 'utf8'), file).not.toMatch(/s3cretpw/);
    }
    expect(result.stderr).not.toMatch(/s3cretpw/);
  }, 60_000);

  it('sends user:pass from the base URL as a Basic header, and keeps it out of the record file', async () => {
    const server = await startFaultServer({ content: reply });
    const record = path.join(dir, 'basic.jsonl');
    try {
      const baseURL = server.baseURL.replace('http://', 'http://alice:s3cretpw@');
      const result = await runCli(evalArgs(path.join(dir, 'basic'), baseURL, ['--record', record]));
      expect(result.code, result.stderr).toBe(0);
      expect(server.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cretpw').toString('base64')}`);
      expect(readFileSync(record, 'utf8')).not.toMatch(/s3cretpw|alice/);
      expect(readFileSync(path.join(dir, 'basic', 'config.json'), 'utf8')).not.toMatch(/s3cretpw|alice/);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('refuses to resume with a changed option, naming it with its old and new value', async () => {
    const server = await startFaultServer({ content: reply });
    const out = path.join(dir, 'options');
    try {
      const first = await runCli(evalArgs(out, server.baseURL, ['--temperature', '0', '--samples', '1', '--tasks', '1']));
      expect(first.code, first.stderr).toBe(0);
      // Every option that changes results, changed at once: each is named, old → new.
      const again = await runCli(evalArgs(out, server.baseURL, ['--temperature', '0.7', '--max-tokens', '256', '--reasoning', 'keep', '--list-actions', '--samples', '1', '--tasks', '1']));
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/EVAL_CONFIG_MISMATCH: /);
      for (const message of [/--temperature: 0 → 0\.7/, /--max-tokens: 1024 → 256/, /--reasoning: "strip" → "keep"/, /--list-actions: false → true/]) expect(again.stderr).toMatch(message);
      const moved = await startFaultServer({ content: reply });
      const elsewhere = await runCli(evalArgs(out, moved.baseURL, ['--temperature', '0', '--samples', '1', '--tasks', '1']));
      await moved.close();
      expect(elsewhere.stderr).toMatch(/--base-url: "http:\/\/127\.0\.0\.1:\d+\/v1" → "http:\/\/127\.0\.0\.1:\d+\/v1"/);
      const same = await runCli(evalArgs(out, server.baseURL, ['--temperature', '0', '--samples', '1', '--tasks', '1']));
      expect(same.code, same.stderr).toBe(0);
    } finally {
      await server.close();
    }
  }, 90_000);

  it('keeps call and token totals equal to the turns after a SIGKILL and a resume', async () => {
    const server = await startFaultServer({ content: reply, latencyMs: 40 });
    const out = path.join(dir, 'killed');
    const args = evalArgs(out, server.baseURL, ['--samples', '4', '--tasks', '6', '--horizon', '6', '--concurrency', '4']);
    try {
      const live = spawnCli(args);
      const episodes = path.join(out, 'episodes.jsonl');
      for (let i = 0; i < 400 && (!existsSync(episodes) || readFileSync(episodes, 'utf8').split('\n').length < 6); i++) await new Promise((r) => setTimeout(r, 50));
      live.child.kill('SIGKILL');
      await live.done;
      const resumed = await runCli(args);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/resuming/);
      const results = JSON.parse(resumed.stdout);
      const records = lines(episodes);
      const turns = records.flatMap((r) => r.trajectory).filter((t) => t.usage !== undefined);
      expect(results.tokens.calls).toBe(turns.length);
      expect(results.tokens.failedCalls).toBe(0);
      expect(results.tokens.promptTokens).toBe(turns.reduce((sum, t) => sum + t.usage!.promptTokens, 0));
      expect(results.tokens.completionTokens).toBe(turns.reduce((sum, t) => sum + t.usage!.completionTokens, 0));
      // The calls of the episodes the kill cut short were made but are not counted twice.
      expect(server.chatRequests).toBeGreaterThan(results.tokens.calls);
      expect(records.every((r) => r.llm !== undefined)).toBe(true);
    } finally {
      await server.close();
    }
  }, 120_000);
});
