import http from 'node:http';
/**
 * The policy server (servers/policy-server/policy-server.ts) against the official `openai` client: a tiny BabyAI
 * checkpoint behind `/v1/chat/completions`, played both directly through the policy and through
 * the server, with the same seeds; the actions must be identical.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import { startPolicyServer, type PolicyServer, type PolicyServerOptions } from '../../servers/policy-server/policy-server.ts';
import { loadCheckpointAgent, type CheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels, toCheckpoint } from '../../learner/run-models.ts';
import { buildTokenizer } from '../../actors/training/tokenizer-corpus.ts';
import type { EnvDefinition } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import type { ChatMessage } from '../../policy/llm/chat-types.ts';
import { createLlmPolicy } from '../../policy/llm/create-llm-policy.ts';
import { promptFor } from '../../envs/prompt/prompt-for.ts';
import { selectBackend } from '../../policy/backend.ts';

const prompt = promptFor('babyai');

const HORIZON = 6;
let env: EnvDefinition;
let dir: string;
let agent: CheckpointAgent;

beforeAll(async () => {
  await selectBackend('cpu');
  env = getEnv('babyai');
  dir = mkdtempSync(path.join(tmpdir(), 'actorgym-policy-server-'));
  const config = resolveConfig('babyai', { steps: 4, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 384 } });
  const tokenizer = await buildTokenizer(env, { seed: 0, tasks: 6, maxVocab: 256 });
  const models = freshModels(tokenizer, config);
  const data = await toCheckpoint(models, {
    step: 3, policyVersion: 3, curriculum: { completedSteps: 3, horizon: 6 }, rng: { seed: 0, derivedFrom: 'seed and step' },
    config,
  });
  await writeCheckpoint(path.join(dir, 'checkpoint'), data);
  models.dispose();
  agent = await loadCheckpointAgent(dir, { backend: 'cpu' });
}, 120_000);

afterAll(() => {
  agent.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function withServer(options: Partial<PolicyServerOptions>, body: (server: PolicyServer, client: OpenAI) => Promise<void>): Promise<void> {
  const server = await startPolicyServer({ port: 0, agent, prompt, ...options });
  const client = new OpenAI({ baseURL: server.url, apiKey: options.token ?? 'unused', maxRetries: 0 });
  try {
    await body(server, client);
  } finally {
    await server.close();
  }
}

interface Played {
  readonly actions: string[];
  /** The conversation before each turn's request. */
  readonly conversations: ChatMessage[][];
}

const TASKS = () => env.tasks('test').slice(0, 4);
const seedOf = (e: number) => 7000 + e;

/** Plays each task directly through the checkpoint's policy, as `eval --checkpoint` does. */
async function playDirect(): Promise<string[][]> {
  return Promise.all(TASKS().map(async (taskId, e) => {
    const instance = env.make();
    let { observation, info } = await instance.reset({ taskId, seed: seedOf(e) });
    const actions: string[] = [];
    for (let turn = 0; turn < HORIZON; turn++) {
      const [decision] = await agent.policy.act([{ episodeId: `direct-${e}`, turn, observation, availableActions: info.availableActions ?? [], seed: seedOf(e) }]);
      actions.push(decision!.action);
      const step = await instance.step(decision!.action);
      ({ observation, info } = step);
      if (step.terminated || step.truncated) break;
    }
    agent.policy.release(`direct-${e}`);
    await instance.close();
    return actions;
  }));
}

/** Plays the same tasks through the server, rendering each turn with the prompt template. */
async function playServed(client: OpenAI, options: { stream?: boolean } = {}): Promise<Played[]> {
  return Promise.all(TASKS().map(async (taskId, e) => {
    const instance = env.make();
    const reset = await instance.reset({ taskId, seed: seedOf(e) });
    const messages: ChatMessage[] = [{ role: 'user', content: prompt.firstTurn(reset.observation, reset.info.availableActions) }];
    const played: Played = { actions: [], conversations: [] };
    for (let turn = 0; turn < HORIZON; turn++) {
      played.conversations.push([...messages]);
      const content = await complete(client, messages, seedOf(e), options.stream ?? false);
      const parsed = prompt.parseReply(content);
      if (!parsed.ok) throw new Error(`unparseable reply ${content}`);
      played.actions.push(parsed.action);
      messages.push({ role: 'assistant', content });
      const step = await instance.step(parsed.action);
      if (step.terminated || step.truncated) break;
      messages.push({ role: 'user', content: prompt.nextTurn(step.observation, step.info.availableActions) });
    }
    await instance.close();
    return played;
  }));
}

async function complete(client: OpenAI, messages: readonly ChatMessage[], seed: number, stream: boolean): Promise<string> {
  if (!stream) {
    const reply = await client.chat.completions.create({ model: 'default', messages: [...messages], seed });
    return reply.choices[0]!.message.content!;
  }
  const chunks = await client.chat.completions.create({ model: 'default', messages: [...messages], seed, stream: true });
  let content = '';
  for await (const chunk of chunks) content += chunk.choices[0]?.delta.content ?? '';
  return content;
}

const firstTurn = async () => {
  const instance = env.make();
  const { observation, info } = await instance.reset({ taskId: TASKS()[0]!, seed: 1 });
  await instance.close();
  return { messages: [{ role: 'user' as const, content: prompt.firstTurn(observation, info.availableActions) }], actions: info.availableActions ?? [] };
};

describe('policy server (OpenAI-compatible chat endpoint)', () => {
  it('lists the checkpoint as its one model', async () => {
    await withServer({}, async (server, client) => {
      const models = await client.models.list();
      expect(models.data).toEqual([{ id: 'actorgym-babyai-step3', object: 'model', created: expect.any(Number), owned_by: 'actorgym' }]);
      expect(server.modelId).toBe('actorgym-babyai-step3');
      expect((await client.models.retrieve('anything')).id).toBe('actorgym-babyai-step3');
    });
  });

  it('answers a completion in the template\'s contract, with usage, under any model name', async () => {
    const { messages, actions } = await firstTurn();
    await withServer({}, async (_, client) => {
      for (const model of ['default', 'gpt-4o', 'actorgym-babyai-step3']) {
        const reply = await client.chat.completions.create({ model, messages, seed: 11 });
        expect(reply).toMatchObject({ object: 'chat.completion', model: 'actorgym-babyai-step3' });
        const choice = reply.choices[0]!;
        expect(choice.finish_reason).toBe('stop');
        expect(choice.message.role).toBe('assistant');
        const parsed = prompt.parseReply(choice.message.content!);
        expect(parsed.ok && actions.includes(parsed.action)).toBe(true);
        const usage = reply.usage!;
        expect(usage.prompt_tokens).toBeGreaterThan(10);
        expect(usage.completion_tokens).toBeGreaterThanOrEqual(2);
        expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      }
    });
  });

  it('streams role, content, finish_reason and usage, then [DONE]; same seed, same reply', async () => {
    const { messages } = await firstTurn();
    await withServer({}, async (_, client) => {
      const plain = await client.chat.completions.create({ model: 'default', messages, seed: 5 });
      const stream = await client.chat.completions.create({ model: 'default', messages, seed: 5, stream: true, stream_options: { include_usage: true } });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(plain.choices[0]!.message.content);
      expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
      expect(chunks.at(-1)!.choices).toEqual([]);
      expect(chunks.at(-1)!.usage).toEqual(plain.usage);
      // Without include_usage there is no usage chunk.
      const bare = await client.chat.completions.create({ model: 'default', messages, seed: 5, stream: true });
      const rest = [];
      for await (const chunk of bare) rest.push(chunk);
      expect(rest.every((c) => c.choices.length === 1 && c.usage == null)).toBe(true);
    });
  });

  it('requires the bearer token on every route when given one', async () => {
    const { messages } = await firstTurn();
    await withServer({ token: 's3cret' }, async (server, client) => {
      expect((await client.models.list()).data).toHaveLength(1);
      const wrong = new OpenAI({ baseURL: server.url, apiKey: 'nope', maxRetries: 0 });
      await expect(wrong.models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
      await expect(wrong.chat.completions.create({ model: 'default', messages })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      const bare = await fetch(`${server.url}/models`);
      expect(bare.status).toBe(401);
      expect(await bare.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key', param: null } });
    });
  });

  it('answers bad requests in OpenAI\'s error shape', async () => {
    const { messages } = await firstTurn();
    await withServer({ maxBodyBytes: 64 * 1024 }, async (server, client) => {
      const post = (body: string) => fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const badJson = await post('{"model": ');
      expect(badJson.status).toBe(400);
      expect(await badJson.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_request', message: expect.stringMatching(/malformed JSON/) } });
      const cases: [object, string | null, RegExp][] = [
        [{ messages }, 'model', /model/],
        [{ model: 'm', messages: [] }, 'messages', /messages/],
        [{ model: 'm', messages, temperature: 'hot' }, 'temperature', /temperature/],
        [{ model: 'm', messages, n: 2 }, 'n', /only n = 1/],
        [{ model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role', /role/],
        [{ model: 'm', messages: [{ role: 'user', content: 'hello there' }] }, 'messages[0].content', /not a first user turn of actorgym's babyai prompt/],
        [{ model: 'm', messages: [...messages, { role: 'assistant', content: 'Action: go forward' }] }, 'messages[1].role', /must end with a user turn/],
        [{ model: 'm', messages: [...messages, { role: 'user', content: prompt.nextTurn('x') }] }, 'messages[1].role', /expected an assistant turn/],
        [{ model: 'm', messages: [{ role: 'system', content: 's' }, ...messages, { role: 'assistant', content: 'Action: drop' }, { role: 'system', content: 's' }, { role: 'user', content: 'x' }] }, 'messages[3].role', /system message may only come before/],
      ];
      for (const [body, param, message] of cases) {
        const res = await post(JSON.stringify(body));
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param, message: expect.stringMatching(message) } });
      }
      await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
      const huge = await post(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(100_000) }] }));
      expect(huge.status).toBe(413);
      expect(await huge.json()).toMatchObject({ error: { code: 'body_too_large' } });
      const unknown = await fetch(`${server.url}/completions`, { method: 'POST', body: '{}' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { code: 'unknown_url' } });
      expect((await fetch(`${server.url}/chat/completions`)).status).toBe(405);
    });
  });

  it('decodes requests that arrive together in one batch', async () => {
    const { messages } = await firstTurn();
    const original = agent.policy.inner.act.bind(agent.policy.inner);
    const act = vi.spyOn(agent.policy.inner, 'act');
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    // The first batch waits until every other request is queued, so they all meet in the next.
    act.mockImplementationOnce(async (batch) => {
      await blocked;
      return original(batch);
    });
    try {
      await withServer({}, async (server, client) => {
        const ask = (seed: number) => client.chat.completions.create({ model: 'default', messages, seed });
        const first = ask(0);
        await vi.waitFor(() => expect(act).toHaveBeenCalledTimes(1));
        const rest = [1, 2, 3, 4, 5].map(ask);
        await vi.waitFor(() => expect(server.served.counts.rebuilt).toBe(6));
        unblock();
        const replies = await Promise.all([first, ...rest]);
        expect(replies.every((r) => prompt.parseReply(r.choices[0]!.message.content!).ok)).toBe(true);
        expect(act.mock.calls.map(([batch]) => batch.length)).toEqual([1, 5]);
      });
    } finally {
      act.mockRestore();
    }
  });

  it('continues a conversation in its session and plays exactly as the policy does directly', async () => {
    const direct = await playDirect();
    // Not vacuous: the sampled episodes differ from each other.
    expect(new Set(direct.map((a) => a.join('|'))).size).toBe(direct.length);
    for (const stream of [false, true]) {
      await withServer({}, async (server, client) => {
        const served = await playServed(client, { stream });
        expect(served.map((p) => p.actions)).toEqual(direct);
        // One rebuild per episode (its first turn); every later turn continued its session.
        const turns = direct.reduce((n, a) => n + a.length, 0);
        expect(server.served.counts).toEqual({ rebuilt: direct.length, resumed: turns - direct.length });
      });
    }
    expect(agent.policy.inner.liveEpisodes).toBe(0);
  });

  it('a rebuilt conversation (evicted sessions, a restarted server) decides as the live one did', async () => {
    const direct = await playDirect();
    // No session survives a reply: every turn is rebuilt from the conversation.
    await withServer({ maxSessions: 0 }, async (server, client) => {
      const served = await playServed(client);
      expect(served.map((p) => p.actions)).toEqual(direct);
      expect(server.served.counts.resumed).toBe(0);
    });
    // A conversation played on one server, continued mid-episode on a fresh one.
    let played!: Played[];
    await withServer({}, async (_, client) => {
      played = await playServed(client);
    });
    await withServer({}, async (_, client) => {
      for (const [e, p] of played.entries()) {
        const turn = p.conversations.length - 1;
        const content = await complete(client, p.conversations[turn]!, seedOf(e), false);
        expect(prompt.parseReply(content)).toEqual({ ok: true, action: direct[e]![turn] });
      }
    });
  });

  it('actorgym\'s LLM policy against the server plays the same episodes as the checkpoint in-process', async () => {
    const run = async (agentSpec: Parameters<typeof createRolloutSystem>[0]['agent']) => {
      const episodes = new Map<string, string[]>();
      await createRolloutSystem({
        env, agent: agentSpec, split: 'test', episodes: 6, concurrency: 6, seed: 3, schedule: 'fixed:6',
        onEpisode: (output) => episodes.set(output.episodeId, output.trajectory.map((t) => t.action)),
      }).run();
      return episodes;
    };
    const direct = await run(agent.policy);
    for (const stream of [false, true]) {
      await withServer({}, async (server) => {
        const llm = createLlmPolicy({ model: 'default', env: getEnv('babyai'), baseURL: server.url, apiKey: 'unused', stream });
        expect(await run(llm)).toEqual(direct);
        expect(llm.usage()).toMatchObject({ failedCalls: 0, retries: 0 });
        expect(llm.usage().completionTokens).toBeGreaterThan(0);
        await llm.close();
        expect(server.served.counts.rebuilt).toBe(direct.size);
      });
    }
  });

  it('replays a reply that named no action as the action the env received', async () => {
    const { messages } = await firstTurn();
    const garbled = 'I am not sure what to do.';
    const told = prompt.parseReply(garbled);
    if (told.ok) throw new Error('expected a format error');
    const conversation: ChatMessage[] = [...messages, { role: 'assistant', content: garbled }, { role: 'user', content: prompt.nextTurn('Not a valid action.', undefined, told.message) }];
    const force = vi.spyOn(agent.policy.inner, 'teacherForce');
    try {
      await withServer({}, async (_, client) => {
        await client.chat.completions.create({ model: 'default', messages: conversation, seed: 1 });
      });
      // The env received the empty action; the model then read the observation without the note.
      expect(force.mock.calls[0]![1]).toEqual([expect.objectContaining({ action: told.envAction })]);
    } finally {
      force.mockRestore();
    }
  });

  it('answers probes without a token, refuses foreign browser origins, and drains running requests on close (issue 24)', async () => {
    const { messages } = await firstTurn();
    const server = await startPolicyServer({ port: 0, agent, prompt, token: 'tok', allowOrigins: ['https://lab.example'], drainMs: 20_000 });
    const base = server.url.replace(/\/v1$/, '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ ready: true });
    const auth = { authorization: 'Bearer tok', 'content-type': 'application/json' };
    const foreign = await fetch(`${server.url}/models`, { headers: { ...auth, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'forbidden_origin' } });
    expect((await fetch(`${server.url}/models`, { headers: { ...auth, origin: 'https://lab.example' } })).status).toBe(200);
    expect((await fetch(`${server.url}/models`, { headers: { ...auth, origin: `http://127.0.0.1:${server.port}` } })).status).toBe(200);

    // A request whose body is still arriving when the server is told to close is answered, not dropped.
    const body = JSON.stringify({ model: 'default', messages, seed: 3 });
    const half = Math.floor(body.length / 2);
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/chat/completions`, { method: 'POST', headers: { ...auth, 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, half));
      void (async () => {
        while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
        const closed = server.close();
        void (async () => {
          const ready = await fetch(`${base}/readyz`).catch(() => undefined);
          expect(ready?.status ?? 503).toBe(503);
          req.end(body.slice(half));
          await closed;
        })().catch(reject);
      })();
    });
    const { status, text } = await answered;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ object: 'chat.completion' });
  });
});
