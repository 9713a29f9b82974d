/**
 * Issue 39, item 6, the parts below the evaluation: context-length rejections told apart (both of
 * vLLM's error bodies, OpenAI's, llama.cpp's), what the one trimmed retry changes, `<think>` kept
 * out of parsing and history, and credentials in a base URL never printed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultServer, type FaultServer, type FaultStep } from '../../../bench/chat-fault-server.ts';
import { createChatClient } from '../../../policy/llm/chat-client.ts';
import type { ChatMessage } from '../../../policy/llm/chat-types.ts';
import { contextLimits, isContextLengthMessage } from '../../../policy/llm/context-length.ts';
import { planContextRetry } from '../../../policy/llm/context-retry.ts';
import { endpointAuth } from '../../../policy/llm/endpoint-auth.ts';
import { wrapped } from '../../../policy/llm/error-body.ts';
import { LlmError, redact } from '../../../policy/llm/llm-error.ts';
import { stripReasoning } from '../../../policy/llm/reasoning.ts';

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function rejection(step: FaultStep): Promise<LlmError> {
  const server = await startFaultServer({ script: [step] });
  servers.push(server);
  const client = createChatClient({ baseURL: server.baseURL, retries: 2, sleep: async () => undefined });
  try {
    await client.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { episodeId: 'e0', turn: 3 });
    throw new Error('the call succeeded');
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    expect(server.chatRequests).toBe(1); // never retried as such
    return error;
  } finally {
    await client.close();
  }
}

const VLLM = "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.";

describe('context-length rejections', () => {
  it("reads vLLM's older top-level body and the newer one alike", async () => {
    const legacy = await rejection({ kind: 'status', status: 400, body: { object: 'error', message: VLLM, type: 'BadRequestError', param: null, code: 400 } });
    expect(legacy.code).toBe('LLM_CONTEXT_LENGTH');
    expect(legacy.detail).toContain('maximum context length is 4096 tokens');
    const newer = await rejection({ kind: 'status', status: 400, message: VLLM });
    expect(newer.code).toBe('LLM_CONTEXT_LENGTH');
    const withoutPort = (detail: string) => detail.replace(/:\d+\/v1/, ':PORT/v1');
    expect(withoutPort(newer.detail)).toBe(withoutPort(legacy.detail));
  });

  it("reports an older body's words for other rejections too (not \"status code (no body)\")", async () => {
    const error = await rejection({ kind: 'status', status: 400, body: { object: 'error', message: 'temperature must be non-negative', type: 'BadRequestError', code: 400 } });
    expect(error.code).toBe('LLM_REJECTED');
    expect(error.detail).toMatch(/temperature must be non-negative/);
    const detail = await rejection({ kind: 'status', status: 422, body: { detail: [{ loc: ['body', 'messages'], msg: 'field required' }] } });
    expect(detail.detail).toMatch(/field required/);
  });

  it("reads llama.cpp's overflow with its numbers", async () => {
    const error = await rejection({
      kind: 'status', status: 400,
      body: { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } },
    });
    expect(error.code).toBe('LLM_CONTEXT_LENGTH');
    expect(contextLimits(error.detail)).toEqual({ limit: 4096, prompt: 5000 });
  });

  it('tells the servers\' overflow messages from other 400s', () => {
    for (const text of [
      VLLM,
      "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1024 > 4096 - 3500).",
      'Input prompt (5000 tokens) is too long and exceeds limit of 4096',
      'context_length_exceeded',
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1024 `max_new_tokens`',
      'prompt is too long: 210000 tokens > 200000 maximum',
    ]) expect(isContextLengthMessage(text), text).toBe(true);
    for (const text of ['Incorrect API key provided', 'The model `x` does not exist.', 'temperature must be non-negative']) expect(isContextLengthMessage(text), text).toBe(false);
    expect(contextLimits(VLLM)).toEqual({ limit: 4096, prompt: 4096 });
    expect(contextLimits('Given: 4000 `inputs` tokens and 1024 `max_new_tokens` must be <= 4096')).toEqual({ limit: 4096, prompt: 4000 });
    expect(contextLimits("your request has 3500 input tokens. This model's maximum context length is 4096 tokens")).toEqual({ limit: 4096, prompt: 3500 });
    expect(wrapped('{"error":{"message":"x"}}')).toBeUndefined();
  });
});

describe('the one retry after a context-length rejection', () => {
  const conversation = (exchanges: number): ChatMessage[] => [
    { role: 'system', content: 'rules' },
    { role: 'user', content: 'task' },
    ...Array.from({ length: exchanges }, (_, i): ChatMessage[] => [{ role: 'assistant', content: `a${i}` }, { role: 'user', content: `o${i}` }]).flat(),
  ];

  it('drops the oldest half of what may go, keeping the system message, the task and the newest observation', () => {
    const plan = planContextRetry({ messages: conversation(5), history: undefined, dropOldest: 0, maxTokens: 1024, detail: 'prompt is too long' });
    expect(plan).toMatchObject({ dropOldest: 2, maxTokens: 1024 });
    const again = planContextRetry({ messages: conversation(6), history: undefined, dropOldest: 2, maxTokens: 1024, detail: 'prompt is too long' });
    expect(again?.dropOldest).toBe(4);
  });

  it('lowers max_tokens when the prompt fits and the completion budget does not', () => {
    const detail = "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 4096 tokens and your request has 3500 input tokens";
    expect(planContextRetry({ messages: conversation(0), history: undefined, dropOldest: 0, maxTokens: 1024, detail })).toMatchObject({ dropOldest: 0, maxTokens: 596 });
  });

  it('has nothing to retry when nothing can be dropped and the budget is not the problem', () => {
    expect(planContextRetry({ messages: conversation(0), history: undefined, dropOldest: 0, maxTokens: undefined, detail: 'prompt is too long' })).toBeUndefined();
  });
});

describe('reasoning', () => {
  it('strips think blocks, an unclosed one, and a reply that starts inside one', () => {
    expect(stripReasoning('<think>Action: a\nAction: b</think>\nThought: x\nAction: go')).toBe('Thought: x\nAction: go');
    expect(stripReasoning('<think>I will write Action: go')).toBe('');
    expect(stripReasoning('drafting Action: a</think>Action: go')).toBe('Action: go');
    expect(stripReasoning('<THINK>a</THINK>Action: x<think>b</think>')).toBe('Action: x');
    expect(stripReasoning(' Thought: plain\nAction: go ')).toBe(' Thought: plain\nAction: go ');
  });
});

describe('credentials', () => {
  it('takes user:pass out of the base URL into a Basic header and lists every form of it for redaction', () => {
    const auth = endpointAuth('http://alice:p%40ss@host:8000/v1?key=1', undefined);
    expect(auth.baseURL).toBe('http://host:8000/v1?key=1');
    expect(auth.endpoint).toBe('http://host:8000/v1');
    expect(auth.headers.authorization).toBe(`Basic ${Buffer.from('alice:p@ss').toString('base64')}`);
    expect(redact('fetch http://alice:p%40ss@host and p@ss', ...auth.secrets)).not.toMatch(/p%40ss|p@ss/);
    const keyed = endpointAuth('http://alice:pw@host/v1', 'sk-1');
    expect(keyed.headers).toEqual({});
    expect(keyed.secrets).toEqual(expect.arrayContaining(['sk-1', 'pw', 'alice:pw']));
    expect(endpointAuth('https://host/v1?api-key=azure-secret&x=1', undefined).secrets).toEqual(['azure-secret']);
    expect(endpointAuth('http://host:8000', undefined)).toMatchObject({ baseURL: 'http://host:8000', headers: { authorization: null } });
  });
});
