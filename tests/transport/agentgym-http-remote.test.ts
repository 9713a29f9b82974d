/**
 * `--remote agentgym+http://…` below the command line: URL parsing, valid actions per family,
 * reward normalisation against scripted stand-ins of AgentGym's SciWorld and WebShop servers,
 * and a pool of two actorgym AgentGym HTTP servers, one of which is killed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { getEnv } from '../../envs/index.ts';
import { EnvError, type Env, type EnvDefinition, type StepResult } from '../../envs/contract.ts';
import { parseRemoteUrls, resolveEnvDefinition } from '../../transport/resolve-env.ts';
import { parseAgentGymRemote } from '../../transport/remote/agentgym-remote-url.ts';
import { expandTemplates, textcraftActions } from '../../transport/remote/agentgym-valid-actions.ts';
import type { PooledEnv } from '../../transport/remote/pooled-env.ts';
import type { PoolEvent } from '../../transport/remote/ws-pool.ts';
import { fakeCounterDefinition } from './agentgym-fake-env.ts';
import { sciworldStandIn, webshopStandIn, type StandIn } from './agentgym-http-standins.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function remote(env: string, url: string, extra: { onPoolEvent?: (e: PoolEvent) => void } = {}): Promise<EnvDefinition> {
  const definition = await resolveEnvDefinition({ env, remote: url, serverWaitMs: 300, ...extra });
  cleanups.push(() => (definition as unknown as { close(): Promise<void> }).close());
  return definition;
}

function made(definition: EnvDefinition): Env {
  const env = definition.make();
  cleanups.push(() => env.close());
  return env;
}

async function standIn(start: () => Promise<StandIn>): Promise<StandIn> {
  const server = await start();
  cleanups.push(() => server.close());
  return server;
}

describe('agentgym+http URLs', () => {
  it('splits pools, keeps ?test=/?train= ranges and refuses mixtures', () => {
    expect(parseRemoteUrls('agentgym+http://a:1?test=0-2,9, agentgym+http://b:2,')).toEqual(['agentgym+http://a:1?test=0-2,9', 'agentgym+http://b:2']);
    expect(() => parseRemoteUrls('agentgym+http://a:1,ws://b:2')).toThrow(/mixes agentgym\+http:\/\/ and ws:\/\//);
    expect(() => parseRemoteUrls('http://a:1')).toThrow(/agentgym\+http:\/\//);
    expect(parseAgentGymRemote(['agentgym+http://a:1/token/T/?test=0-2,9&train=3', 'agentgym+http://b:2'])).toEqual({
      urls: ['http://a:1/token/T', 'http://b:2'],
      test: [0, 1, 2, 9],
      train: [3],
    });
    expect(() => parseAgentGymRemote(['agentgym+http://a:1?tests=1'])).toThrow(/unknown parameter "tests"/);
    expect(() => parseAgentGymRemote(['agentgym+http://a:1?test=5-2'])).toThrow(/runs backwards/);
  });
});

describe('valid actions from what each family offers', () => {
  it('fills SciWorld templates with objects, never pairing an object with itself, and caps the list', () => {
    const actions = expandTemplates(['look around', 'open OBJ', 'connect OBJ to OBJ'], ['a', 'b', 'c']);
    expect(actions).toEqual(['look around', 'open a', 'open b', 'open c', 'connect a to b', 'connect a to c', 'connect b to a', 'connect b to c', 'connect c to a', 'connect c to b']);
    const objects = Array.from({ length: 60 }, (_, i) => `o${i}`);
    const capped = expandTemplates(['look around', 'connect OBJ to OBJ'], objects, 100);
    expect(capped).toHaveLength(100);
    expect(capped[0]).toBe('look around');
    expect(new Set(capped).size).toBe(100);
  });

  it("reads TextCraft's crafting commands as the real server shows them", () => {
    const observation = 'Crafting commands:\ncraft 1 stick using 2 oak planks\ncraft 4 oak planks using 1 oak log\n\nGoal: craft stick.';
    expect(textcraftActions(observation)).toEqual(['craft 1 stick using 2 oak planks', 'craft 4 oak planks using 1 oak log', 'get 1 oak log', 'inventory']);
    expect(textcraftActions('Got 1 oak log')).toBeUndefined();
  });
});

describe('a stand-in of AgentGym SciWorld (scores −100…100, /action_hint templates)', () => {
  async function play(env: Env, taskId: string, actions: string[]) {
    const reset = await env.reset({ taskId, seed: 1 });
    const steps: StepResult[] = [];
    for (const action of actions) steps.push(await env.step(action));
    return { reset, steps };
  }

  it('normalises the score to 0…1, keeps the raw numbers, and lists template actions', async () => {
    const server = await standIn(sciworldStandIn);
    const sciworld = await remote('sciworld', `agentgym+http://${server.url.slice('http://'.length)}`);
    // A foreign SciWorld: actorgym's numbering (test first), no categories (its data_idx are not ours).
    expect(sciworld.tasks('test')).toHaveLength(getEnv('sciworld').spec.splits.test);
    expect(sciworld.tasks('test').slice(0, 2)).toEqual(['sciworld_0', 'sciworld_1']);
    expect(sciworld.categoryOf).toBeUndefined();
    expect(sciworld.spec.maxReward).toBe(1);

    const env = made(sciworld);
    const won = await play(env, 'sciworld_3', ['open door', 'look around', 'focus on water']);
    expect(won.reset.observation).toBe('Your task is to boil water.\nThis room is called the kitchen.');
    expect(won.reset.info).toMatchObject({ taskName: 'boil', variation: 3, score: 0 });
    expect(won.reset.info.availableActions).toEqual(expect.arrayContaining(['look around', 'open door', 'focus on water', 'go to stove', 'connect door to water']));
    expect(won.reset.info.availableActions).not.toContain('connect door to door');
    expect(won.steps.map((s) => [s.reward, s.info.score, s.info['rawReward'], s.terminated])).toEqual([
      [0.25, 25, 25, false],
      [0, 25, 0, false],
      [0.75, 100, 75, true],
    ]);
    expect(won.steps.at(-1)?.info.success).toBe(true);
    expect(won.steps.at(-1)?.info.availableActions).toBeUndefined();

    const lost = await play(env, 'sciworld_4', ['open door', 'focus on stove']);
    // −100 counts as 0: the episode's rewards sum to 0, the raw score stays in info.
    expect(lost.steps.map((s) => [s.reward, s.info.score, s.info['rawReward']])).toEqual([
      [0.25, 25, 25],
      [-0.25, -100, -125],
    ]);
    expect(lost.steps.at(-1)).toMatchObject({ terminated: true, info: { success: false } });
    const resets = server.requests.filter((r) => r.route === 'POST /reset').map((r) => r.body);
    expect(resets).toEqual([
      { id: 0, data_idx: 3, seed: 1 },
      { id: 0, data_idx: 4, seed: 1 },
    ]);
  });

  it('takes the data_idx of each split from the URL', async () => {
    const server = await standIn(sciworldStandIn);
    const sciworld = await remote('sciworld', `agentgym+http://${server.url.slice(7)}?test=10-12&train=20,22`);
    expect(sciworld.tasks('test')).toEqual(['sciworld_10', 'sciworld_11', 'sciworld_12']);
    expect(sciworld.tasks('train')).toEqual(['sciworld_20', 'sciworld_22']);
    expect(sciworld.spec.splits).toEqual({ test: 3, train: 2 });
    expect((await made(sciworld).reset({ taskId: 'sciworld_22' })).info['variation']).toBe(22);
  });
});

describe('a stand-in of AgentGym WebShop (bare ids, env_idx, /available_actions)', () => {
  it('plays an episode with its field names and lists click/search actions', async () => {
    const server = await standIn(webshopStandIn);
    const webshop = await remote('webshop', `agentgym+http://${server.url.slice(7)}`);
    expect(webshop.tasks('test')).toHaveLength(200);
    const env = made(webshop);
    const reset = await env.reset({ taskId: 'webshop_5' });
    expect(reset.observation).toContain('i need a red mug');
    expect(reset.info.availableActions).toEqual(['search[i need a red mug]']);
    const results = (await env.step('search[i need a red mug]')).info.availableActions;
    expect(results).toEqual(['click[back to search]', 'click[mug-1]']);
    await env.step('click[mug-1]');
    const bought = await env.step('click[buy now]');
    expect(bought).toMatchObject({ reward: 0.75, terminated: true, info: { rawReward: 0.75, success: false } });
    expect(server.requests.find((r) => r.route === 'POST /reset')?.body).toEqual({ env_idx: 7, session_id: 5 });
  });
});

describe('agentgym+http start-up errors', () => {
  it('names the token problem, and asks for data_idx ranges for an env actorgym does not know', async () => {
    const server = await startAgentGymHttpServer({ port: 0, definition: fakeCounterDefinition(), token: 'sesame' });
    cleanups.push(() => server.close());
    const bare = `agentgym+http://${server.url.slice(7)}`;
    await expect(resolveEnvDefinition({ env: 'fake-counter', remote: `${bare}?test=0-1` })).rejects.toThrow(/UNAUTHORIZED: .* \/token\/T/);
    await expect(resolveEnvDefinition({ env: 'fake-counter', remote: bare })).rejects.toMatchObject({ code: 'ENV_UNKNOWN', message: expect.stringContaining('?test=') });
    const withToken = await remote('fake-counter', `${bare}/token/sesame?test=0-1`);
    const env = made(withToken);
    expect((await env.reset({ taskId: 'fake-counter_1' })).observation).toContain('count to 3');
  });
});

describe('a pool of two AgentGym HTTP servers', () => {
  async function ours(): Promise<AgentGymHttpServer> {
    const server = await startAgentGymHttpServer({ port: 0, definition: fakeCounterDefinition() });
    cleanups.push(() => server.close());
    return server;
  }

  it('spreads instances, and moves them off a killed server; its in-flight step is ENV_LOST', async () => {
    const [a, b] = await Promise.all([ours(), ours()]);
    const events: PoolEvent[] = [];
    const url = (s: AgentGymHttpServer) => `agentgym+http://${s.url.slice(7)}?test=0-1&train=2-5`;
    const pool = await remote('fake-counter', `${url(a)},${url(b)}`, { onPoolEvent: (e) => events.push(e) });
    expect(pool.tasks('train')).toEqual(['fake-counter_2', 'fake-counter_3', 'fake-counter_4', 'fake-counter_5']);
    const envs = [made(pool), made(pool)] as PooledEnv[];
    for (const env of envs) expect((await env.reset({ taskId: 'fake-counter_0' })).info.availableActions).toEqual(['inc', 'wait']);
    expect(new Set(envs.map((e) => e.server))).toEqual(new Set([a.url, b.url]));

    const onB = envs.find((e) => e.server === b.url) as PooledEnv;
    const stats = () => (pool as unknown as { stats(): Array<{ url: string; losses: number; placed: number }> }).stats();
    const placedOnA = stats().find((s) => s.url === a.url)?.placed ?? NaN;
    await b.close();
    const lost = await onB.step('inc').then(() => undefined, (e: unknown) => e);
    expect(lost).toBeInstanceOf(EnvError);
    expect((lost as EnvError).code).toBe('ENV_LOST');
    expect(events.map((e) => [e.type, e.url, e.live])).toContainEqual(['server.lost', b.url, 1]);

    // The next episode is placed on the live server and plays through.
    await onB.reset({ taskId: 'fake-counter_1' });
    expect(onB.server).toBe(a.url);
    let last = await onB.step('inc');
    while (!last.terminated && !last.truncated) last = await onB.step('inc');
    expect(last).toMatchObject({ terminated: true, info: { success: true } });
    expect(stats().find((s) => s.url === b.url)).toMatchObject({ losses: 1 });
    expect(stats().find((s) => s.url === a.url)).toMatchObject({ losses: 0, placed: placedOnA + 1 });
  });
});
