/**
 * Issue 23: an OpenAI-compatible chat model acts in real episodes through the runtime, against a
 * scripted server on loopback. Transport failures end episodes `aborted` (never `failure`),
 * a format error is a turn the model is told about, the concurrency limit holds, and a recording
 * replays to the same per-episode results with no endpoint.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../../actors/rollout-system.ts';
import { getEnv } from '../../../envs/index.ts';
import type { EpisodeOutput } from '../../../machines/episode.machine.ts';
import { createLlmPolicy, type CreateLlmPolicyOptions } from '../../../policy/llm/create-llm-policy.ts';
import { mulberry32 } from '../../../policy/rng.ts';
import { startFaultServer, type FaultServer, type FaultServerOptions, type SeenRequest } from '../../../bench/chat-fault-server.ts';

const servers: FaultServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function server(options: FaultServerOptions): Promise<FaultServer> {
  const s = await startFaultServer(options);
  servers.push(s);
  return s;
}

function lastUser(request: SeenRequest): string {
  const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/** A BabyAI player: an action from the turn's own list, chosen by a generator seeded per request. */
function babyaiReply(request: SeenRequest): string {
  const list = /Available actions: (\[.*\])/.exec(lastUser(request));
  const actions = list ? (JSON.parse(list[1]!) as string[]) : ['move forward'];
  const seed = (request.body as { seed?: number }).seed ?? 0;
  const turn = (request.body as { messages: { role: string }[] }).messages.filter((m) => m.role === 'assistant').length;
  const goTo = actions.filter((a) => a.startsWith('go to') || a.startsWith('pickup'));
  const pool = goTo.length > 0 && mulberry32(seed + turn).next() < 0.7 ? goTo : actions;
  const pick = pool[Math.floor(mulberry32(seed * 31 + turn).next() * pool.length)]!;
  return `Thought: I look at what I can do.\nAction: ${pick}`;
}

const fast = { retries: 2, timeoutMs: 2_000 } as const;

async function play(options: Omit<CreateLlmPolicyOptions, 'model' | 'env'>, run: { episodes: number; concurrency?: number; horizon?: number }) {
  const agent = createLlmPolicy({ model: 'test-model', env: getEnv('babyai'), ...options });
  const outputs: EpisodeOutput[] = [];
  const summary = await createRolloutSystem({
    env: getEnv('babyai'),
    agent,
    split: 'test',
    episodes: run.episodes,
    concurrency: run.concurrency ?? 8,
    schedule: `fixed:${run.horizon ?? 6}`,
    seed: 3,
    onEpisode: (output) => outputs.push(output),
  }).run();
  await agent.close();
  return { summary, outputs, usage: agent.usage(), agent };
}

describe('LLM agent in episodes (issue 23)', () => {
  it('plays BabyAI in the Thought/Action contract; every turn keeps its tokens, latency and reply', async () => {
    const s = await server({ content: babyaiReply });
    const { summary, outputs, usage } = await play({ baseURL: s.baseURL, ...fast }, { episodes: 8 });
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.episodes).toBe(8);
    const turns = outputs.flatMap((o) => o.trajectory);
    expect(turns.length).toBe(usage.calls);
    for (const turn of turns) {
      expect(turn.usage?.reply).toMatch(/^Thought: .*\nAction: /);
      expect(turn.usage?.promptTokens).toBeGreaterThan(0);
      expect(turn.action).toBe(turn.usage?.reply.split('Action: ')[1]);
    }
    // The first request of an episode is one user turn with the framing and the reset observation.
    const first = s.requests.find((r) => r.method === 'POST')!;
    const messages = (first.body as { messages: { role: string; content: string }[] }).messages;
    expect(messages.map((m) => m.role)).toEqual(['user']);
    expect(messages[0]!.content).toContain('Your goal:');
    expect(messages[0]!.content).toContain('Action:');
    expect(usage.promptTokens).toBeGreaterThan(0);
  });

  it('a reply with two Action: lines is a turn the env rejects, and the model is told why', async () => {
    const s = await server({
      script: (request, index) => ({ kind: 'ok', content: index === 0 ? 'Thought: a\nAction: turn left\nAction: turn right' : babyaiReply(request) }),
    });
    const { outputs } = await play({ baseURL: s.baseURL, ...fast }, { episodes: 1, concurrency: 1 });
    const [episode] = outputs;
    expect(episode!.outcome).not.toBe('aborted');
    const first = episode!.trajectory[0]!;
    expect(first.usage?.formatError).toBe('multiple_actions');
    expect(first.invalidAction).toBe(true);
    const second = s.requests.filter((r) => r.method === 'POST')[1]!;
    const told = lastUser(second);
    expect(told.indexOf('Action:')).toBeGreaterThanOrEqual(0);
    // The note comes before the env's answer to the rejected action.
    expect(told.indexOf('Action')).toBeLessThan(told.indexOf(first.observation.slice(0, 20)));
  });

  it('an endpoint that stays down ends every episode aborted (retried, never scored as failure)', async () => {
    const s = await server({ script: () => ({ kind: 'status', status: 500 }) });
    const { summary, outputs } = await play({ baseURL: s.baseURL, retries: 1, timeoutMs: 1_000 }, { episodes: 4, concurrency: 4 });
    expect(summary.outcomes).toEqual({ success: 0, failure: 0, truncated: 0, aborted: 4 });
    for (const output of outputs) {
      expect(output.outcome).toBe('aborted');
      expect(output.abortReason).toBe('agent_error');
      expect(output.error).toContain('LLM_UNAVAILABLE');
    }
    // 4 slots × 2 attempts (the run retries an aborted slot once) × 2 calls (first try + 1 retry).
    expect(s.chatRequests).toBe(16);
  });

  it('a call that hangs past its deadline is retried, and the turn counts its retry', async () => {
    const s = await server({ script: [{ kind: 'hang' }], content: babyaiReply });
    const { summary, outputs } = await play({ baseURL: s.baseURL, retries: 2, timeoutMs: 300 }, { episodes: 1, concurrency: 1, horizon: 2 });
    expect(summary.outcomes.aborted).toBe(0);
    expect(outputs[0]!.trajectory[0]!.usage?.retries).toBe(1);
  });

  it('with 20 % 429s every episode finishes, and --llm-concurrency is never exceeded', async () => {
    const s = await server({
      script: (_request, index) => (index % 5 === 2 ? { kind: 'status', status: 429, retryAfter: '0' } : { kind: 'ok' }),
      content: babyaiReply,
      latencyMs: 15,
    });
    const { summary, usage } = await play({ baseURL: s.baseURL, concurrency: 3, ...fast, retries: 6 }, { episodes: 24, concurrency: 24 });
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.episodes).toBe(24);
    expect(usage.retries).toBeGreaterThan(0);
    expect(s.maxInFlight).toBe(3);
    expect(usage.maxInFlight).toBeLessThanOrEqual(3);
  });

  it('--record then --replay gives the same per-episode results, with no endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'actorgym-replay-'));
    dirs.push(dir);
    const file = join(dir, 'calls.jsonl');
    const s = await server({ content: babyaiReply, script: (_r, i) => (i % 7 === 3 ? { kind: 'status', status: 503 } : { kind: 'ok' }) });
    const recorded = await play({ baseURL: s.baseURL, record: file, ...fast }, { episodes: 10 });
    await s.close();
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBe(recorded.usage.calls);
    const replayed = await play({ baseURL: 'http://127.0.0.1:9/v1', replay: file, ...fast }, { episodes: 10 });
    const view = (outputs: EpisodeOutput[]) =>
      outputs
        .map((o) => ({ id: o.episodeId, task: o.taskId, outcome: o.outcome, reward: o.reward, actions: o.trajectory.map((t) => t.action) }))
        .sort((a, b) => a.id.localeCompare(b.id));
    expect(view(replayed.outputs)).toEqual(view(recorded.outputs));
    expect(replayed.summary.results).toEqual(recorded.summary.results);
  });

  it('a replay whose request differs stops with an error naming the episode and turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'actorgym-replay-'));
    dirs.push(dir);
    const file = join(dir, 'calls.jsonl');
    const s = await server({ content: babyaiReply });
    await play({ baseURL: s.baseURL, record: file, temperature: 1, ...fast }, { episodes: 2 });
    const replayed = await play({ replay: file, temperature: 0.5, ...fast }, { episodes: 2 });
    expect(replayed.agent.fatalError?.code).toBe('LLM_REPLAY_MISMATCH');
    expect(replayed.agent.fatalError?.message).toMatch(/episode run-3-s\da0 turn 0/);
    expect(replayed.agent.fatalError?.message).toContain('temperature');
  });
});
