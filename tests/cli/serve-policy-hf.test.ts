/**
 * Issue 36 (item 7): `actorgym serve-policy --policy hf:DIR` as a user runs it — the real entry
 * point in a child process, on the tiny Qwen2 chat model (tests/fixtures/hf/serve-tiny), driven
 * by the openai client and by `actorgym rollout --agent openai:MODEL`.
 */
import type { ChildProcess } from 'node:child_process';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';
import { startServePolicy } from './serve-policy-process.ts';

const FIXTURE = 'tests/fixtures/hf/serve-tiny';


async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('actorgym serve-policy --policy hf:DIR', () => {
  it('serves the model to the openai client, batches concurrent requests, and a rollout runs against it', async () => {
    const server = await startServePolicy(['--policy', `hf:${FIXTURE}`, '--port', '0', '--backend', 'wasm', '--token', 'tok', '--max-new-tokens', '160']);
    try {
      expect(server.modelId).toBe('hf:serve-tiny');
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(server.stderr()).toMatch(/backend: wasm · tests\/fixtures\/hf\/serve-tiny · .* context 4096/);
      const client = new OpenAI({ baseURL: server.url, apiKey: 'tok', maxRetries: 0 });
      expect((await client.models.list()).data.map((m) => m.id)).toEqual(['hf:serve-tiny']);
      const messages = [{ role: 'user' as const, content: 'go to the red ball' }];
      const reply = await client.chat.completions.create({ model: 'hf:serve-tiny', messages, seed: 4, max_tokens: 6 });
      expect(reply.usage?.completion_tokens).toBe(6);
      expect((await client.chat.completions.create({ model: 'hf:serve-tiny', messages, seed: 4, max_tokens: 6 })).choices[0]!.message.content).toBe(reply.choices[0]!.message.content);
      await expect(new OpenAI({ baseURL: server.url, apiKey: 'wrong', maxRetries: 0 }).models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);

      // A long request keeps the model busy (decoding does not yield to the event loop) while four
      // more arrive from this process on open keep-alive sockets: they queue into one batch.
      const post = (body: object) => fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer tok', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'hf:serve-tiny', messages, ...body }) });
      const four = () => Promise.all([1, 2, 3, 4].map((seed) => client.chat.completions.create({ model: 'hf:serve-tiny', messages, seed, max_tokens: 4 })));
      const warm = await four();
      const long = post({ temperature: 0, max_tokens: 160 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const batched = await four();
      expect((await long).status).toBe(200);
      expect(batched.map((r) => r.choices[0]!.message.content)).toEqual(warm.map((r) => r.choices[0]!.message.content));
      const health = (await (await fetch(server.url.replace(/\/v1$/, '/healthz'))).json()) as { largestBatch: number; recentSizes: string };
      expect(health.recentSizes.split(' ').slice(-2)).toEqual(['1', '4']);

      const rollout = await runCli(['rollout', '--agent', 'openai:hf:serve-tiny', '--base-url', server.url, '--api-key', 'tok', '--env', 'babyai', '--episodes', '2', '--horizon', '2', '--max-tokens', '8', '--json']);
      expect(rollout.code, rollout.stderr).toBe(0);
      // A random model fails its tasks: the rollout must complete, not succeed.
      const summary = JSON.parse(rollout.stdout) as { episodes: number; abortedAttempts: number; meanTurns: number; llm: { calls: number; failedCalls: number; completionTokens: number } };
      expect(summary.episodes).toBe(2);
      expect(summary.abortedAttempts).toBe(0);
      expect(summary.llm.calls).toBe(2 * summary.meanTurns);
      expect(summary.llm.failedCalls).toBe(0);
      expect(summary.llm.completionTokens).toBeLessThanOrEqual(8 * summary.llm.calls);
    } finally {
      expect(await stop(server.child)).toBe(0);
    }
  }, 120_000);

  it('refuses a folder that is not there, naming the missing file, and two policies at once', async () => {
    const missing = await runCli(['serve-policy', '--policy', 'hf:/nonexistent', '--port', '0']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/\/nonexistent\/config\.json does not exist/);
    const both = await runCli(['serve-policy', '--policy', `hf:${FIXTURE}`, '--checkpoint', 'runs/x', '--port', '0']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/give one of --checkpoint DIR and --policy SPEC, not both/);
    const badSpec = await runCli(['serve-policy', '--policy', 'tiny', '--port', '0']);
    expect(badSpec.stderr).toMatch(/--policy must be hf:DIR .* or checkpoint:DIR/);
  }, 60_000);
});
