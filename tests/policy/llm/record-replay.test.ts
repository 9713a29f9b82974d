import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createChatClient, requestHash, type ChatClient, type ChatClientOptions } from '../../../policy/llm/chat-client.ts';
import type { ChatReply, ChatRequest } from '../../../policy/llm/chat-types.ts';
import { LlmError } from '../../../policy/llm/llm-error.ts';
import { Recorder, recordEntry } from '../../../policy/llm/record-replay.ts';
import { startFaultServer, type FaultServer, type FaultServerOptions } from '../../../bench/chat-fault-server.ts';

const SECRET = 'sk-record-s3cret-4242';
let dir = '';
const servers: FaultServer[] = [];
const clients: ChatClient[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'actorgym-llm-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function serve(options: FaultServerOptions = {}): Promise<FaultServer> {
  const server = await startFaultServer(options);
  servers.push(server);
  return server;
}

function client(options: ChatClientOptions): ChatClient {
  const created = createChatClient({ sleep: async () => undefined, ...options });
  clients.push(created);
  return created;
}

async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function turnRequest(episode: number, turn: number): ChatRequest {
  const messages: ChatRequest['messages'] = [{ role: 'user', content: `Episode ${episode}: your goal is to open the door.` }];
  const history = [...messages];
  for (let t = 0; t < turn; t++) history.push({ role: 'assistant', content: `Action: step ${t}` }, { role: 'user', content: `You moved (${t}).` });
  return { model: 'fault-model', messages: history, temperature: 0, maxTokens: 32, seed: 100 + episode };
}

async function outcome(promise: Promise<ChatReply>): Promise<ChatReply | LlmError> {
  return promise.catch((error: unknown) => {
    if (error instanceof LlmError) return error;
    throw error;
  });
}

/** Three episodes of three turns, episode 1 turn 2 failing through its retries. */
async function recordRun(path: string) {
  const server = await serve({
    content: (seen) => `Thought: t\nAction: reply to ${(seen.body as { messages: unknown[] }).messages.length} messages`,
    script: (seen) => ((seen.body as { seed: number }).seed === 101 && (seen.body as { messages: unknown[] }).messages.length === 5 ? { kind: 'status', status: 503 } : { kind: 'ok' }),
  });
  const recording = client({ baseURL: server.baseURL, apiKey: SECRET, record: path, retries: 1 });
  const results = await Promise.all(
    [0, 1, 2].map(async (episode) => {
      const turns: Array<ChatReply | LlmError> = [];
      for (let turn = 0; turn < 3; turn++) turns.push(await outcome(recording.complete(turnRequest(episode, turn), { episodeId: `ep${episode}`, turn })));
      return turns;
    }),
  );
  await recording.close();
  return { results, usage: recording.usage(), server };
}

describe('record then replay', () => {
  it('replays every reply and final error exactly, without contacting any endpoint', async () => {
    const path = join(dir, 'calls.jsonl');
    const recorded = await recordRun(path);
    expect(recorded.results[1]?.[2]).toBeInstanceOf(LlmError);
    expect(recorded.server.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);

    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(9);
    const first = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(first).sort()).toEqual(['episodeId', 'hash', 'reply', 'request', 'turn']);

    const replaying = client({ baseURL: await closedPortURL(), replay: path });
    const replayed = await Promise.all(
      [0, 1, 2].map(async (episode) => {
        const turns: Array<ChatReply | LlmError> = [];
        for (let turn = 0; turn < 3; turn++) turns.push(await outcome(replaying.complete(turnRequest(episode, turn), { episodeId: `ep${episode}`, turn })));
        return turns;
      }),
    );
    expect(replayed).toEqual(recorded.results);
    const failed = replayed[1]?.[2] as LlmError;
    const original = recorded.results[1]?.[2] as LlmError;
    expect(failed).toBeInstanceOf(LlmError);
    expect({ code: failed.code, message: failed.message, retries: failed.retries }).toEqual({ code: 'LLM_UNAVAILABLE', message: original.message, retries: 1 });
    const { maxInFlight: _live, ...replayedUsage } = replaying.usage();
    const { maxInFlight: _recorded, ...recordedUsage } = recorded.usage;
    expect(replayedUsage).toEqual(recordedUsage);
    expect(replaying.usage().maxInFlight).toBe(0);
  });

  it('never writes the API key into the recording', async () => {
    const path = join(dir, 'calls.jsonl');
    await recordRun(path);
    const badKey = await serve({ apiKey: 'sk-other' });
    const rejected = client({ baseURL: badKey.baseURL, apiKey: SECRET, record: path });
    await expect(rejected.complete(turnRequest(0, 0), { episodeId: 'x', turn: 0 })).rejects.toThrow(/Incorrect API key/);
    expect(readFileSync(path, 'utf8')).not.toContain(SECRET);
    expect(readFileSync(path, 'utf8')).toContain('LLM_REJECTED');
  });

  it('copies only the request’s own fields into a line', () => {
    const sneaky = { ...turnRequest(0, 0), apiKey: SECRET, headers: { authorization: SECRET } } as ChatRequest;
    const entry = recordEntry({ episodeId: 'e', turn: 0 }, sneaky, { reply: { content: 'x', promptTokens: 1, completionTokens: 1, latencyMs: 1, retries: 0 } });
    expect(JSON.stringify(entry)).not.toContain(SECRET);
    expect(entry.hash).toBe(requestHash(turnRequest(0, 0)));
  });
});

describe('replay refuses what it cannot answer', () => {
  async function recording(): Promise<string> {
    const path = join(dir, 'calls.jsonl');
    await recordRun(path);
    return path;
  }

  it('names the episode, the turn and the part that differs (a message)', async () => {
    const replaying = client({ baseURL: await closedPortURL(), replay: await recording() });
    const changed = turnRequest(2, 1);
    const edited = { ...changed, messages: changed.messages.map((m, i) => (i === 1 ? { ...m, content: 'Action: jump' } : m)) };
    const error = await outcome(replaying.complete(edited, { episodeId: 'ep2', turn: 1 }));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).code).toBe('LLM_REPLAY_MISMATCH');
    expect((error as LlmError).message).toContain('episode ep2 turn 1');
    expect((error as LlmError).message).toContain('message 1 (assistant) differs');
  });

  it('names the model, the sampling fields and the message count when they differ', async () => {
    const replaying = client({ baseURL: await closedPortURL(), replay: await recording() });
    const base = turnRequest(0, 2);
    const cases: Array<[ChatRequest, RegExp]> = [
      [{ ...base, model: 'other' }, /model "other" where the recording has "fault-model"/],
      [{ ...base, temperature: 0.5 }, /temperature 0.5 where the recording has 0/],
      [{ ...base, seed: 7 }, /seed 7 where the recording has 100/],
      [{ ...base, messages: base.messages.slice(0, 3) }, /3 messages where the recording has 5/],
    ];
    for (const [request, message] of cases) {
      await expect(replaying.complete(request, { episodeId: 'ep0', turn: 2 })).rejects.toThrow(message);
    }
  });

  it('reports a call the recording does not hold as LLM_REPLAY_MISSING', async () => {
    const replaying = client({ baseURL: await closedPortURL(), replay: await recording() });
    const error = await outcome(replaying.complete(turnRequest(0, 3), { episodeId: 'ep0', turn: 3 }));
    expect(error).toMatchObject({ code: 'LLM_REPLAY_MISSING', episodeId: 'ep0', turn: 3 });
    expect((error as LlmError).message).toContain('episode ep0 turn 3');
    expect(replaying.usage()).toMatchObject({ calls: 1, failedCalls: 1 });
  });

  it('says clearly that a replay file cannot be read', () => {
    expect(() => createChatClient({ baseURL: 'http://127.0.0.1:9/v1', replay: join(dir, 'absent.jsonl') })).toThrow(/cannot read the LLM recording .*absent\.jsonl/);
  });
});

describe('a recording cut by a killed run', () => {
  it('skips the half line at the end with a warning and replays the rest', async () => {
    const path = join(dir, 'calls.jsonl');
    await recordRun(path);
    appendFileSync(path, '{"episodeId":"ep9","turn":0,"hash":"ab');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const replaying = client({ baseURL: await closedPortURL(), replay: path });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/skipped 1 unreadable line\(s\) \(10\)/);
    expect(await replaying.complete(turnRequest(0, 0), { episodeId: 'ep0', turn: 0 })).toMatchObject({ content: 'Thought: t\nAction: reply to 1 messages' });
  });

  it('starts a resumed recording on a fresh line, so both runs stay readable', () => {
    const path = join(dir, 'calls.jsonl');
    const reply = { content: 'Action: a', promptTokens: 1, completionTokens: 1, latencyMs: 1, retries: 0 };
    writeFileSync(path, `${JSON.stringify(recordEntry({ episodeId: 'a', turn: 0 }, turnRequest(0, 0), { reply }))}\n{"episodeId":"b","tu`);
    new Recorder(path).write(recordEntry({ episodeId: 'c', turn: 0 }, turnRequest(1, 0), { reply }));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const replaying = client({ baseURL: 'http://127.0.0.1:9/v1', replay: path });
    expect(warn).toHaveBeenCalledTimes(1);
    return Promise.all([
      expect(replaying.complete(turnRequest(0, 0), { episodeId: 'a', turn: 0 })).resolves.toEqual(reply),
      expect(replaying.complete(turnRequest(1, 0), { episodeId: 'c', turn: 0 })).resolves.toEqual(reply),
    ]);
  });

  it('lets a later line for the same call replace an earlier one (a resumed run re-records)', () => {
    const path = join(dir, 'calls.jsonl');
    const recorder = new Recorder(path);
    const reply = (content: string) => ({ content, promptTokens: 1, completionTokens: 1, latencyMs: 1, retries: 0 });
    recorder.write(recordEntry({ episodeId: 'a', turn: 0 }, turnRequest(0, 0), { error: { code: 'LLM_TIMEOUT', detail: 'late', retries: 4 } }));
    recorder.write(recordEntry({ episodeId: 'a', turn: 0 }, turnRequest(0, 0), { reply: reply('Action: second') }));
    const replaying = client({ baseURL: 'http://127.0.0.1:9/v1', replay: path });
    return expect(replaying.complete(turnRequest(0, 0), { episodeId: 'a', turn: 0 })).resolves.toMatchObject({ content: 'Action: second' });
  });
});

describe('requestHash', () => {
  it('depends on the content, not on how the object was built', () => {
    const a: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], seed: 1, temperature: 0 };
    const b = { temperature: 0, seed: 1, messages: [{ content: 'hi', role: 'user' as const }], model: 'm' };
    expect(requestHash(a)).toBe(requestHash(b));
    expect(requestHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash({ ...a, seed: 2 })).not.toBe(requestHash(a));
    expect(requestHash({ ...a, maxTokens: 10 })).not.toBe(requestHash(a));
    expect(requestHash({ model: 'm', messages: a.messages })).not.toBe(requestHash(a));
  });
});
