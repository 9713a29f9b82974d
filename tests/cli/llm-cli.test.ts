/**
 * Issue 23: `rollout --agent openai:MODEL` through the real entry point against a scripted
 * OpenAI-compatible server: usage in `--json`, the key sent but never printed, and an endpoint
 * that rejects the model stops the run with a clear error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFaultServer, type FaultServer, type SeenRequest } from '../../bench/chat-fault-server.ts';
import { runCli } from './run-cli.ts';

const SECRET = 'sk-test-7f3a9c';
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-llm-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const firstAction = (request: SeenRequest) => {
  const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
  const list = /Available actions: (\[.*\])/.exec(messages[messages.length - 1]!.content);
  return `Thought: try the first one\nAction: ${list ? (JSON.parse(list[1]!) as string[])[0] : 'turn left'}`;
};

describe('actorgym rollout --agent openai:MODEL (issue 23)', () => {
  it('reports LLM usage in --json and never prints the API key', async () => {
    const server = await startFaultServer({ content: firstAction, apiKey: SECRET });
    servers.push(server);
    const result = await runCli(['rollout', '--env', 'babyai', '--agent', 'openai:tiny', '--base-url', server.baseURL, '--api-key', SECRET,
      '--episodes', '4', '--horizon', '3', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { agent: string; episodes: number; outcomes: { aborted: number }; llm: { calls: number; promptTokens: number; latencyP50Ms: number } };
    expect(summary.agent).toBe('openai:tiny');
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.llm.calls).toBeGreaterThanOrEqual(4);
    expect(summary.llm.promptTokens).toBeGreaterThan(0);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(server.requests.filter((r) => r.method === 'POST').every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);
  });

  it('an endpoint that rejects the model stops the run with its message, exit 1', async () => {
    const server = await startFaultServer({ content: firstAction, models: ['served-model'] });
    servers.push(server);
    const result = await runCli(['rollout', '--env', 'babyai', '--agent', 'openai:wrong-model', '--base-url', server.baseURL, '--episodes', '8', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('LLM_REJECTED');
    expect(result.stderr).toContain('wrong-model');
    // Stopped at the first rejection: not every episode and its retry tried it.
    expect(server.chatRequests).toBeLessThan(16);
  });

  it('--agent openai: without a model name is a clear error', async () => {
    const result = await runCli(['rollout', '--env', 'babyai', '--agent', 'openai:']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('needs a model name');
  });

  it('eval --record, then --replay with no endpoint: the same episodes; a changed request stops with exit 1', async () => {
    const server = await startFaultServer({ content: firstAction });
    servers.push(server);
    const recording = path.join(dir, 'calls.jsonl');
    const common = ['eval', '--agent', 'openai:tiny', '--env', 'babyai', '--samples', '2', '--tasks', '3', '--horizon', '4', '--json'];
    const recorded = await runCli([...common, '--base-url', server.baseURL, '--record', recording, '--out', path.join(dir, 'rec')]);
    expect(recorded.code, recorded.stderr).toBe(0);
    await server.close();
    const replayed = await runCli([...common, '--base-url', server.baseURL, '--replay', recording, '--out', path.join(dir, 'rep')]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const episodes = (out: string) =>
      readFileSync(path.join(dir, out, 'episodes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { episodeId: string; outcome: string; trajectory: { action: string }[] })
        .map((e) => [e.episodeId, e.outcome, e.trajectory.map((t) => t.action)]).sort();
    expect(episodes('rep')).toEqual(episodes('rec'));
    expect(JSON.parse(replayed.stdout).passAtK).toEqual(JSON.parse(recorded.stdout).passAtK);
    const diverged = await runCli([...common, '--temperature', '0.5', '--replay', recording, '--out', path.join(dir, 'bad')]);
    expect(diverged.code).toBe(1);
    expect(diverged.stderr).toMatch(/LLM_REPLAY_MISMATCH: LLM call of episode eval-0-s\d+a0 turn 0: .*temperature 0\.5/);
  });
});
