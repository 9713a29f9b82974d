/**
 * Issue 24, finding 1, through the real entry point: `actorgym serve --token T --agentgym-http Q`
 * answered create/reset/step with no or a wrong token on the AgentGym HTTP port.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../bench/stats.ts';
import { bearer, request } from '../transport/agentgym-http-request.ts';

let server: ChildServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('actorgym serve --token --agentgym-http (issue 24, finding 1)', () => {
  it('guards the AgentGym HTTP port with the same token, takes --http-token, drains on SIGTERM and exits 0', async () => {
    server = await startChildServer(['babyai', '--port', '0', '--agentgym-http', '0', '--token', 'T', '--http-token', 'U', '--http-max-instances-per-client', '1', '--log-json'], 2);
    const http = server.urls.find((url) => url.startsWith('http://')) as string;
    let stderr = '';
    server.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    expect(await request(`${http}/create`, { body: {} })).toMatchObject({ status: 401, json: { code: 'UNAUTHORIZED' } });
    expect((await request(`${http}/create`, { body: {}, headers: bearer('wrong') })).status).toBe(401);
    expect(await request(`${http}/healthz`)).toMatchObject({ status: 200, json: { instances: 0 } });

    const { id } = (await request(`${http}/create`, { body: {}, headers: bearer('T') })).json as { id: number };
    expect((await request(`${http}/reset`, { body: { id, data_idx: 0 }, headers: bearer('T') })).json).toMatchObject({ done: false });
    expect((await request(`${http}/create`, { body: {}, headers: bearer('T') })).json).toMatchObject({ code: 'TOO_MANY_INSTANCES' });
    expect((await request(`${http}/create`, { body: {}, headers: bearer('U') })).json).toHaveProperty('id');
    expect((await request(`${http}/step`, { body: { id, action: 'turn left' }, headers: bearer('U') })).json).toMatchObject({ code: 'ENV_CLOSED' });
    expect((await request(`${http}/create`, { body: {}, headers: { origin: 'https://evil.example', ...bearer('T') } })).status).toBe(403);

    const exited = new Promise<number | null>((resolve) => server?.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const events = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { server: string; event: string });
    const ours = events.filter((line) => line.server === 'agentgym-http').map((line) => line.event);
    expect(ours).toEqual(expect.arrayContaining(['request.refused', 'instance.created', 'instance.refused', 'server.draining', 'server.closed']));
    expect(stderr).not.toContain('"T"');
  }, 60_000);
});
