/** TextCraft served over actorgym's WebSocket protocol and AgentGym's HTTP protocol. */
import { afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { remoteEnvDefinition } from '../../transport/remote/ws-client.ts';
import { textcraftDefinition } from '../../envs/textcraft/index.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}

describe('textcraft over WebSocket', () => {
  it('plays the same episodes as in-process, and the server-side oracle solves them', async () => {
    const server = await startEnvServer({ port: 0, resolveEnv: () => textcraftDefinition });
    cleanups.push(() => server.close());
    const env = await remoteEnvDefinition(server.url, 'textcraft');
    cleanups.push(() => env.close());
    expect(env.spec).toMatchObject({ id: 'textcraft', defaultHorizon: 30, splits: { train: 374, test: 100 } });

    const options = { agent: 'random' as const, split: 'test' as const, episodes: 20, seed: 5, concurrency: 8 };
    const local = await createRolloutSystem({ env: textcraftDefinition, ...options }).run();
    const overWs = await createRolloutSystem({ env, ...options }).run();
    expect(overWs.outcomes.aborted).toBe(0);
    expect(overWs.results).toEqual(local.results);

    const oracle = await createRolloutSystem({ env, agent: 'oracle', split: 'test', episodes: 20, concurrency: 8 }).run();
    expect(oracle.successRate).toBe(1);
  });
});

describe('textcraft over AgentGym HTTP', () => {
  it('answers with AgentGym\'s TextCraft field names and messages', async () => {
    const server = await startAgentGymHttpServer({ port: 0, definition: textcraftDefinition });
    cleanups.push(() => server.close());
    const created = await post(`${server.url}/create`, {});
    expect(created).toMatchObject({ id: 0, done: false, reward: 0 });
    expect(created['observation']).toMatch(/^Crafting commands:\n[^]*\n\nGoal: craft .+\.$/);

    const reset = await post(`${server.url}/reset`, { id: 0, data_idx: 0 });
    expect(Object.keys(reset).sort()).toEqual(['done', 'id', 'observation', 'reward']);
    // data_idx as agentenv-textcraft's TextCraftEnv.reset: 0 → acacia planks, 100 → snow block (fixtures/agentgym-reference.json).
    expect(reset['observation']).toContain('Goal: craft acacia planks.');
    const hundred = await post(`${server.url}/reset`, { id: 0, data_idx: 100 });
    expect(hundred['observation']).toContain('Goal: craft snow block.');

    expect(await post(`${server.url}/step`, { id: 0, action: 'inventory' })).toEqual({
      observation: 'Inventory: You are not carrying anything.',
      reward: 0,
      done: false,
    });
    expect(await post(`${server.url}/step`, { id: 0, action: 'jump' })).toEqual({
      observation: 'Could not execute jump',
      reward: 0,
      done: false,
      invalid_action: true,
    });
  });
});
