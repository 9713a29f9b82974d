import { afterEach, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { agentGymTaskOrder } from '../../transport/remote/agentgym-http-env.ts';
import { CORRECT_MESSAGE, INVALID_MESSAGE, promptFor, questionOf, searchDefinition, searchTasks } from '../../envs/search/index.ts';

const servers: AgentGymHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res.json();
}

describe("search over AgentGym's SearchQA HTTP shape (reference §2)", () => {
  it('creates with {"id"} → bare env_idx, resets with {"env_idx", "id"} → bare prompt, steps → {observation, reward, done, info}', async () => {
    const server = await startAgentGymHttpServer({ port: 0, definition: searchDefinition });
    servers.push(server);
    const url = server.url;
    const order = agentGymTaskOrder(searchDefinition);

    const envIdx = await post(`${url}/create`, { id: 0 });
    expect(envIdx).toBe(0);
    const first = questionOf(searchTasks('test')[0] as string);
    const observed = await fetch(`${url}/observation?env_idx=0`).then((r) => r.json());
    expect(observed).toBe(promptFor(first.text));

    const dataIdx = order.dataIdxOf('capital/FRA') as number;
    expect(await post(`${url}/reset`, { env_idx: 0, id: dataIdx })).toBe(promptFor('What is the capital of France?'));

    expect(await post(`${url}/step`, { env_idx: 0, action: 'Paris' })).toEqual({ observation: INVALID_MESSAGE, reward: 0, done: false, info: null, invalid_action: true });
    const search = (await post(`${url}/step`, { env_idx: 0, action: '<search> France </search>' })) as { observation: string };
    expect(search.observation).toMatch(/^<information>Doc 1\(Title: "France"\)/);
    expect(await post(`${url}/step`, { env_idx: 0, action: '<answer> Paris </answer>' })).toEqual({ observation: CORRECT_MESSAGE, reward: 1, done: true, info: null, success: true });
    expect(await post(`${url}/close`, { env_idx: 0 })).toBe(true);
    expect(await post(`${url}/create`, { id: 10 ** 9 })).toMatchObject({ code: 'TASK_UNKNOWN' });
  });
});
