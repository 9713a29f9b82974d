/**
 * The web env on the AgentGym HTTP endpoint as agentenv-webarena serves it (issue 27), driven by a
 * client written from docs/agentgym-http.md the way AgentGym's WebarenaEnvClient calls it:
 * `/create {}` → `{"env_idx"}`, `/reset {"env_idx", "seed", "idx"}` → `{"observation", "sites",
 * "object"}`, `GET /observation?env_idx=`, `/step {"env_idx", "action": <the model's whole reply>}`
 * → `{"observation", "reward", "terminated", "truncated", "info"}`, `/close {"env_idx"}`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { webDefinition, webTask } from '../../envs/web/index.ts';

let server: AgentGymHttpServer;
beforeAll(async () => {
  server = await startAgentGymHttpServer({ port: 0, definition: webDefinition });
});
afterAll(async () => {
  await server.close();
});

async function post(route: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

const reply = (action: string) => `Let's think step-by-step. This page shows what I need. In summary, the next action I will perform is \`\`\`${action}\`\`\``;

describe('AgentGym HTTP, web (WebArena field names)', () => {
  it('plays an episode: the objective at reset, actions inside a model reply, stop scored; then the next idx on the same env_idx', async () => {
    const test = webDefinition.tasks('test');
    const idx = test.findIndex((id) => id.startsWith('shop/info/'));
    const task = webTask(test[idx]!);
    const last = task.plan[task.plan.length - 1]!;
    const answer = 'stop' in last ? last.stop : '';
    expect(answer).not.toBe('');

    expect(await (await fetch(`${server.url}/`)).json()).toContain('web');
    const created = await post('/create', {});
    expect(created.json).toEqual({ env_idx: expect.any(Number) });
    const env_idx = created.json.env_idx as number;

    const reset = await post('/reset', { env_idx, seed: 0, idx });
    expect(Object.keys(reset.json).sort()).toEqual(['object', 'observation', 'sites']);
    expect(reset.json.object).toBe(task.objective);
    expect(reset.json.sites).toEqual(['shopping']);
    expect(reset.json.observation).toMatch(/^OBSERVATION:\n/);
    expect(reset.json.observation).toContain(`\nOBJECTIVE: ${task.objective}\nPREVIOUS ACTION: None`);
    const observed = await fetch(`${server.url}/observation?env_idx=${env_idx}`);
    expect(await observed.json()).toBe(reset.json.observation);

    // A reply whose action is malformed, and one with no code block: a turn with a message, not an error.
    const bad = await post('/step', { env_idx, action: reply('click [abc]') });
    expect(bad.json).toMatchObject({ reward: 0, terminated: false, truncated: false, info: { invalidAction: true } });
    expect(bad.json.observation).toContain("Invalid action 'click [abc]'");
    expect(bad.json.observation).toContain('PREVIOUS ACTION: click [abc]');
    const prose = await post('/step', { env_idx, action: 'I am not sure what to do here.' });
    expect(prose.json).toMatchObject({ reward: 0, terminated: false, info: { invalidAction: true } });

    const stop = await post('/step', { env_idx, action: reply(`stop [${answer}]`) });
    expect(stop.json).toMatchObject({ reward: 1, terminated: true, truncated: false, info: { success: true, invalidAction: false, site: 'shop' } });
    expect(Object.keys(stop.json).sort()).toEqual(['info', 'observation', 'reward', 'terminated', 'truncated']);
    expect(await post('/step', { env_idx, action: reply('scroll [down]') })).toMatchObject({ status: 200, json: { code: 'ENV_NOT_RESET' } });

    // idx past the test split is the train split, in order (docs/agentgym-http.md#data_idx--task).
    const train = webTask(webDefinition.tasks('train')[0]!);
    const again = await post('/reset', { env_idx, seed: 0, idx: test.length });
    expect(again.json.object).toBe(train.objective);
    expect(again.json.sites).toEqual([train.site === 'shop' ? 'shopping' : 'reddit']);

    expect((await post('/close', { env_idx })).json).toBe(true);
    expect((await post('/close', { env_idx })).json).toBe(false);
  }, 60_000);

  it('answers a bad reset with AgentGym\'s failure shape plus the error, and a body without env_idx with a 400', async () => {
    const size = webDefinition.tasks('test').length + webDefinition.tasks('train').length;
    const { env_idx } = (await post('/create', {})).json as { env_idx: number };
    const outOfRange = await post('/reset', { env_idx, seed: 0, idx: size });
    expect(outOfRange).toMatchObject({ status: 200, json: { observation: 'TimeoutError', sites: 'Error', object: 'Error', code: 'TASK_UNKNOWN' } });
    expect(outOfRange.json.error).toContain(`out of range 0..${size - 1}`);
    const unknown = await post('/reset', { env_idx: env_idx + 1000, seed: 0, idx: 0 });
    expect(unknown.json).toMatchObject({ observation: 'TimeoutError', code: 'ENV_CLOSED' });
    expect(unknown.json.error).toMatch(/^The id \d+ is not valid/);
    const notReset = await post('/step', { env_idx, action: reply('scroll [down]') });
    expect(notReset.json).toMatchObject({ code: 'ENV_NOT_RESET' });
    const wrongField = await post('/step', { id: env_idx, action: 'scroll [down]' });
    expect(wrongField.status).toBe(400);
    expect(wrongField.json.error).toContain('"env_idx"');
    expect((await post('/close', { env_idx })).json).toBe(true);
  }, 30_000);
});
