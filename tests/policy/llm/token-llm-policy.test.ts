/**
 * Issue 38: `TokenLlmPolicy` (openai:MODEL --tokenizer hf:DIR) against the scripted server. The
 * prompt goes out as the chat template's ids, each turn appends (never re-renders), the record is
 * the ids sent and sampled with mask 1 exactly on the sampled ones, and the drift check fires when
 * the server spells replies with other ids.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getEnv } from '../../../envs/index.ts';
import { promptOf } from '../../../envs/contract.ts';
import { loadHfTokenizer } from '../../../policy/hf/tokenizer/index.ts';
import { openingMessages } from '../../../policy/llm/llm-policy.ts';
import { createTokenLlmPolicy } from '../../../policy/llm/create-token-llm-policy.ts';
import { LlmError } from '../../../policy/llm/llm-error.ts';
import { scriptedLogProb, startScriptedServer, type ScriptedOptions, type ScriptedServer } from './scripted-completions-server.ts';

const DIR = 'tests/fixtures/hf/serve-tiny';
const tokenizer = loadHfTokenizer(DIR);
const env = getEnv('babyai');
const prompt = promptOf(env, {});
const REPLIES = ['Thought: go\nAction: turn left', 'Thought: again\nAction: go forward'];
const servers: ScriptedServer[] = [];
afterEach(async () => Promise.all(servers.splice(0).map((s) => s.close())));

async function play(options: Partial<ScriptedOptions> = {}, route?: 'completions' | 'chat') {
  const server = await startScriptedServer({ tokenizer, reply: (_, n) => REPLIES[n % 2]!, ...options });
  servers.push(server);
  const policy = createTokenLlmPolicy({ model: 'm', env, baseURL: server.baseURL, tokenizer: DIR, ...(route !== undefined ? { route } : {}), retries: 0 });
  const turns = [{ observation: 'You see a red ball. Your mission: go to the red ball.' }, { observation: 'You moved.' }];
  const decisions = [];
  for (const [turn, t] of turns.entries()) decisions.push(...(await policy.act([{ episodeId: 'e0', turn, seed: 5, ...t }])));
  return { server, policy, decisions, record: policy.release('e0')!, turns };
}

const encode = (text: string) => tokenizer.encode(text, { addSpecialTokens: false });
const END = tokenizer.tokenToId('<|im_end|>')!;

describe('token-exact LLM episodes (issue 38)', () => {
  it('sends the chat template\'s ids, appends each turn, and records ids, mask and log-probs exactly', async () => {
    const { server, decisions, record, turns } = await play();
    const [first, second] = server.requests;
    expect(first!.body.prompt).toEqual(tokenizer.encodeChat(openingMessages(prompt, turns[0]!), { addGenerationPrompt: true }));
    expect(first!.body).toMatchObject({ logprobs: 1, return_token_ids: true, return_tokens_as_token_ids: true, seed: 5 });
    const reply0 = [...encode(REPLIES[0]!), END];
    // Turn 1's prompt is turn 0's prompt + the sampled ids + only what the template adds.
    const prompt1 = second!.body.prompt as number[];
    expect(prompt1.slice(0, first!.promptIds.length + reply0.length)).toEqual([...first!.promptIds, ...reply0]);
    expect(tokenizer.decode(prompt1)).toBe(tokenizer.applyChatTemplate([
      ...openingMessages(prompt, turns[0]!), { role: 'assistant', content: REPLIES[0]! }, { role: 'user', content: prompt.nextTurn(turns[1]!.observation, undefined, undefined) },
    ], { addGenerationPrompt: true }));
    const reply1 = [...encode(REPLIES[1]!), END];
    expect(record.tokens).toEqual([...prompt1, ...reply1]);
    expect(record.mask).toEqual(record.tokens.map((_, i) => (i < first!.promptIds.length ? 0 : i < first!.promptIds.length + reply0.length ? 1 : i < prompt1.length ? 0 : 1)));
    expect(record.logProbs.filter((_, i) => record.mask[i] === 1)).toEqual([...reply0.map((_, i) => scriptedLogProb(i)), ...reply1.map((_, i) => scriptedLogProb(i))]);
    expect(record.driftTurns).toEqual([]);
    expect(decisions.map((d) => d.action)).toEqual(['turn left', 'go forward']);
    expect(decisions[0]!.tokenIds).toEqual(reply0);
  });

  it('flags every turn of a server that spells its replies with other ids, and keeps the ids it sampled', async () => {
    const { record, decisions } = await play({ retokenize: 'chars' });
    expect(record.driftTurns).toEqual([0, 1]);
    expect(decisions[0]!.tokenIds).toEqual([...[...REPLIES[0]!].flatMap((c) => encode(c)), END]);
    expect(decisions.map((d) => d.action)).toEqual(['turn left', 'go forward']);
  });

  it('reads ids from token_id:<id> log-prob names, and closes a reply whose stop id the server left out with a template token', async () => {
    const { record, server } = await play({ idsAs: 'names', omitStop: true });
    const reply0 = encode(REPLIES[0]!);
    const start = server.requests[0]!.promptIds.length;
    expect(record.tokens.slice(start, start + reply0.length + 1)).toEqual([...reply0, END]);
    expect(record.mask.slice(start, start + reply0.length + 1)).toEqual([...reply0.map(() => 1), 0]);
    expect(record.driftTurns).toEqual([]);
  });

  it('a chat-only server: the same record from the ids it returns; prompt ids it read otherwise are drift', async () => {
    const viaCompletions = (await play()).record;
    const { record, server } = await play({}, 'chat');
    expect(server.requests.every((r) => r.route === 'chat')).toBe(true);
    expect(record.tokens).toEqual(viaCompletions.tokens);
    expect(record.driftTurns).toEqual([]);
  });

  it('a server without /v1/completions (404): the chat route from then on, without being told', async () => {
    const viaCompletions = (await play()).record;
    const { record, server } = await play({ chatOnly: true });
    expect(server.requests.map((r) => r.route)).toEqual(['chat', 'chat']);
    expect(record.tokens).toEqual(viaCompletions.tokens);
    // Named, the route is kept: a 404 then stops the run.
    const named = await startScriptedServer({ tokenizer, reply: () => REPLIES[0]!, chatOnly: true });
    servers.push(named);
    const policy = createTokenLlmPolicy({ model: 'm', env, baseURL: named.baseURL, tokenizer: DIR, route: 'completions', retries: 0 });
    await expect(policy.act([{ episodeId: 'e', turn: 0, seed: 1, observation: 'hi' }])).rejects.toThrow(/LLM_REJECTED.*404/);
  });

  it('a server that returns no token ids stops the run: LLM_REJECTED naming the missing field', async () => {
    const server = await startScriptedServer({ tokenizer, reply: () => REPLIES[0]!, idsAs: 'none' });
    servers.push(server);
    const policy = createTokenLlmPolicy({ model: 'm', env, baseURL: server.baseURL, tokenizer: DIR, retries: 2 });
    let fatal: LlmError | undefined;
    policy.onFatal = (error) => (fatal = error);
    const error = await policy.act([{ episodeId: 'e0', turn: 0, seed: 1, observation: 'hi' }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).code).toBe('LLM_REJECTED');
    expect((error as LlmError).message).toContain('token_ids');
    expect(fatal).toBe(error);
    // Not retried: the server will not learn the field on a second try.
    expect(server.requests).toHaveLength(1);
  });

  it('sends topP as top_p on both routes, none without it, and refuses one outside (0, 1]', async () => {
    for (const route of ['completions', 'chat'] as const) {
      const server = await startScriptedServer({ tokenizer, reply: () => REPLIES[0]! });
      servers.push(server);
      const policy = createTokenLlmPolicy({ model: 'm', env, baseURL: server.baseURL, tokenizer: DIR, route, retries: 0, topP: 0.85 });
      await policy.act([{ episodeId: 'e0', turn: 0, seed: 1, observation: 'You see a red ball.' }]);
      await policy.close();
      expect(server.requests.map((r) => [r.route, r.body.top_p])).toEqual([[route, 0.85]]);
    }
    const { server } = await play();
    expect(server.requests.every((r) => !('top_p' in r.body))).toBe(true);
    for (const topP of [0, 1.01, Number.NaN]) {
      expect(() => createTokenLlmPolicy({ model: 'm', env, baseURL: 'http://127.0.0.1:9/v1', tokenizer: DIR, topP })).toThrow(/topP must be in \(0, 1\]/);
    }
  });

  it('refuses the text-only flags with --tokenizer', () => {
    expect(() => createTokenLlmPolicy({ model: 'm', env, tokenizer: DIR, historyTurns: 2, record: 'x.jsonl' })).toThrow(/--history-turns, --record cannot be used/);
  });
});
