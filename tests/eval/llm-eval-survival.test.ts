/**
 * Issue 39, item 6: an LLM evaluation survives what real models do. Against a scripted
 * OpenAI-compatible server on loopback: context-length rejections (in vLLM's older top-level body
 * and the newer `{"error": …}` one) end their episodes as counted, truncated results and the
 * evaluation finishes; a reasoning model whose `<think>` drafts "Action:" lines scores exactly as
 * the same model without them; totals are the sum of the episode lines; avgAtN is null when
 * nothing was scored.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFaultServer, type FaultServerOptions, type SeenRequest } from '../../bench/chat-fault-server.ts';
import { getEnv, type EnvDefinition } from '../../envs/index.ts';
import type { EvalEpisodeRecord } from '../../eval/eval-record.ts';
import { runEvaluation } from '../../eval/run-eval.ts';
import { createLlmPolicy, type CreateLlmPolicyOptions } from '../../policy/llm/create-llm-policy.ts';

const root = mkdtempSync(path.join(tmpdir(), 'actorgym-llm-eval-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const babyai = getEnv('babyai');
const tasks: EnvDefinition = { ...babyai, tasks: (split) => babyai.tasks(split).filter((_, i) => i % 9 === 0) };

type Messages = { role: string; content: string }[];
const messagesOf = (request: SeenRequest) => (request.body as { messages: Messages }).messages;
const seedOf = (request: SeenRequest) => (request.body as { seed?: number }).seed ?? 0;
const lastUser = (request: SeenRequest) => [...messagesOf(request)].reverse().find((m) => m.role === 'user')?.content ?? '';

/** An action from the turn's own list, chosen by the observation and the episode's seed only (not the history). */
function pick(request: SeenRequest): string {
  const list = /Available actions: (\[.*\])/.exec(lastUser(request));
  const actions = list ? (JSON.parse(list[1]!) as string[]) : ['move forward'];
  const goTo = actions.filter((a) => a.startsWith('go to') || a.startsWith('pickup'));
  const hash = createHash('sha256').update(`${seedOf(request)}|${lastUser(request)}`).digest();
  const pool = goTo.length > 0 && hash[0]! < 180 ? goTo : actions;
  return pool[hash.readUInt32BE(1) % pool.length]!;
}

const plain = (request: SeenRequest) => `Thought: I look at what I can do.\nAction: ${pick(request)}`;
/** The same reply after a think block that drafts two actions (a format error if it were parsed). */
const thinking = (request: SeenRequest) =>
  `<think>\nMaybe Action: turn left. Or Action: turn right? Let me see what the room holds.\n${'I weigh each option. '.repeat(40)}\n</think>\n${plain(request)}`;

async function evaluate(name: string, server: FaultServerOptions, policy: Omit<CreateLlmPolicyOptions, 'model' | 'env'> = {}) {
  const fault = await startFaultServer(server);
  if (policy.replay !== undefined) await fault.close(); // a replay contacts no endpoint
  const agent = createLlmPolicy({ model: 'm', env: babyai, baseURL: fault.baseURL, retries: 1, timeoutMs: 5_000, backoff: undefined, ...policy } as CreateLlmPolicyOptions);
  const out = path.join(root, name);
  try {
    const run = await runEvaluation({
      env: tasks,
      agent,
      samples: 2,
      seed: 5,
      horizon: 8,
      concurrency: 4,
      out,
      usage: () => agent.usage(),
      watchCalls: (listener) => {
        agent.onCallEnded = listener;
      },
    });
    const records = readFileSync(path.join(out, 'episodes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as EvalEpisodeRecord);
    return { run, records, fault };
  } finally {
    await agent.close();
    await fault.close();
  }
}

const chars = (messages: Messages) => messages.reduce((sum, m) => sum + m.content.length, 0);
const overflowText = (messages: Messages) =>
  `This model's maximum context length is 2048 tokens. However, you requested ${Math.ceil(chars(messages) / 4) + 1024} tokens (${Math.ceil(chars(messages) / 4)} in the messages, 1024 in the completion). Please reduce the length of the messages or completion.`;

describe('an LLM evaluation against real-model behaviour (issue 39)', () => {
  it('counts episodes that overflow the context and finishes the evaluation', async () => {
    const full = new Set<number>();
    const recording = path.join(root, 'overflow.calls.jsonl');
    const { run, records, fault } = await evaluate('overflow', {
      content: plain,
      script: (request) => {
        const messages = messagesOf(request);
        const assistants = messages.filter((m) => m.role === 'assistant').length;
        // Odd seeds: once an episode is 2 turns in, nothing fits, trimmed or not (vLLM's older body).
        // Others: a window that only a history of 4 exchanges overflows (the newer body).
        if (seedOf(request) % 2 === 1 && assistants >= 2) full.add(seedOf(request));
        if (full.has(seedOf(request))) {
          return { kind: 'status', status: 400, body: { object: 'error', message: overflowText(messages), type: 'BadRequestError', param: null, code: 400 } };
        }
        if (assistants >= 4) return { kind: 'status', status: 400, message: overflowText(messages) };
        return { kind: 'ok' };
      },
    }, { record: recording });
    const { results } = run;
    expect(results.complete).toBe(true);
    expect(results.missing).toBe(0);
    const exhausted = records.filter((r) => r.exhausted !== undefined);
    expect(exhausted.length).toBeGreaterThan(0);
    for (const record of exhausted) {
      expect(record.outcome).toBe('truncated');
      // The server's words reach the reason, from the older top-level body too.
      expect(record.exhausted).toMatch(/^context_length: .*maximum context length is 2048 tokens.*after one retry that dropped the oldest/);
    }
    expect(results.exhausted).toEqual({ context_length: exhausted.length });
    expect(results.outcomes.truncated).toBeGreaterThanOrEqual(exhausted.length);
    expect(results.outcomes.aborted).toBe(0);
    // Episodes that overflowed once went on with a trimmed history: later turns after a retry.
    const retried = fault.requests.filter((r) => r.path === '/v1/chat/completions' && seedOf(r) % 2 === 0 && messagesOf(r).filter((m) => m.role === 'assistant').length >= 4);
    expect(retried.length).toBeGreaterThan(0);
    // Totals are the episode lines' sum: every call the server answered or refused, none twice.
    expect(results.tokens?.calls).toBe(fault.chatRequests);
    const answered = records.reduce((sum, r) => sum + r.trajectory.filter((t) => t.usage !== undefined).length, 0);
    expect(results.tokens!.calls - results.tokens!.failedCalls).toBe(answered);
    // The trimmed retries are recorded apart from their first tries: a replay gives the same episodes.
    const replayed = await evaluate('overflow-replayed', {}, { replay: recording });
    const view = (rs: readonly EvalEpisodeRecord[]) => rs.map((r) => [r.episodeId, r.outcome, r.exhausted ?? '', r.trajectory.map((t) => t.action)]).sort();
    expect(view(replayed.records)).toEqual(view(records));
  }, 60_000);

  it('scores a <think> model exactly as the same model without think blocks, and keeps the thinking out of the history', async () => {
    const same = await evaluate('plain', { content: plain });
    const think = await evaluate('think', { content: thinking });
    const view = (records: readonly EvalEpisodeRecord[]) =>
      records.map((r) => ({ id: r.episodeId, outcome: r.outcome, actions: r.trajectory.map((t) => t.action) })).sort((a, b) => a.id.localeCompare(b.id));
    expect(view(think.records)).toEqual(view(same.records));
    expect(think.run.results.avgAtN).toBe(same.run.results.avgAtN);
    expect(think.run.results.passAtK).toEqual(same.run.results.passAtK);
    expect(same.run.results.avgAtN).toBeGreaterThan(0);
    expect(think.records.flatMap((r) => r.trajectory).every((t) => t.usage?.formatError === undefined)).toBe(true);
    // The trajectory keeps the reply whole; no request sent a past thought back.
    expect(think.records[0]!.trajectory[0]!.usage!.reply).toMatch(/^<think>/);
    expect(think.fault.requests.some((r) => messagesOf(r).some((m) => m.role === 'assistant' && m.content.includes('<think>')))).toBe(false);
  }, 60_000);

  it('with --reasoning keep, the think block is parsed and every turn is a format error', async () => {
    const kept = await evaluate('keep', { content: thinking }, { reasoning: 'keep' });
    expect(kept.run.results.avgAtN).toBe(0);
    expect(kept.records.flatMap((r) => r.trajectory).every((t) => t.usage?.formatError !== undefined)).toBe(true);
  }, 60_000);

  it('reports avgAtN null, not 0, when nothing was scored', async () => {
    const { run } = await evaluate('down', { fallback: { kind: 'status', status: 500 } }, { retries: 0 });
    expect(run.results.missing).toBe(run.results.tasks * run.results.n);
    expect(run.results.avgAtN).toBeNull();
    expect(run.results.passAtK).toEqual({});
    expect(run.results.abortedAttempts).toBeGreaterThan(run.results.outcomes.aborted); // retried, then aborted again
  }, 60_000);
});
