/**
 * Issue 24, finding 4: the dashboard answered any `Host:` header, so a DNS-rebinding page could
 * read it; its `/live` WebSocket took any Origin; bound beyond loopback it had no authentication.
 */
import http from 'node:http';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { dashboardAccess } from '../../cli/commands/dashboard.ts';
import { startDashboard, type Dashboard, type DashboardOptions } from '../../dashboard/index.ts';
import { defaultAllowedHosts } from '../../dashboard/server/access.ts';

const dashboards: Dashboard[] = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((dashboard) => dashboard.close()));
});

async function start(options: DashboardOptions = {}): Promise<Dashboard> {
  const dashboard = await startDashboard({ port: 0, tickMs: 50, ...options });
  dashboards.push(dashboard);
  return dashboard;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(dashboard: Dashboard, path: string, headers: http.OutgoingHttpHeaders = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: dashboard.port, path, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens `/live`; resolves with the first frame's op, or the HTTP status that refused the upgrade. */
function live(dashboard: Dashboard, headers: Record<string, string> = {}): Promise<string | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${dashboard.port}/live`, { headers });
    ws.once('message', (data) => {
      resolve((JSON.parse(String(data)) as { op: string }).op);
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

describe('dashboard Host and Origin checks (issue 24, finding 4)', () => {
  it('refuses a DNS-rebinding Host on pages, the API and /live; answers loopback names and allowed hosts', async () => {
    const dashboard = await start({ allowedHosts: ['dash.lab'] });
    const rebinding = { host: `evil.example:${dashboard.port}` };
    for (const path of ['/', '/api/runs', '/app/main.js']) {
      const reply = await get(dashboard, path, rebinding);
      expect(reply.status, path).toBe(403);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { code: 'FORBIDDEN_HOST' } });
    }
    expect(await live(dashboard, rebinding)).toBe(403);
    for (const host of [`127.0.0.1:${dashboard.port}`, `localhost:${dashboard.port}`, `[::1]:${dashboard.port}`, `dash.lab:${dashboard.port}`]) {
      expect((await get(dashboard, '/api/runs', { host })).status, host).toBe(200);
    }
    expect((await get(dashboard, '/api/runs', { host: `dash.lab.evil.example:${dashboard.port}` })).status).toBe(403);
  });

  it("refuses /live to another site's page; its own page and programs (no Origin) connect", async () => {
    const dashboard = await start();
    expect(await live(dashboard, { origin: 'https://evil.example' })).toBe(403);
    expect(await live(dashboard, { origin: `http://127.0.0.1:${dashboard.port}` })).toBe('hello');
    expect(await live(dashboard, { origin: `http://localhost:${dashboard.port}`, host: `localhost:${dashboard.port}` })).toBe('hello');
    expect(await live(dashboard)).toBe('hello');
    expect((await get(dashboard, '/api/runs', { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('answers /healthz and /readyz before any check', async () => {
    const dashboard = await start({ token: 'secret' });
    const health = await get(dashboard, '/healthz', { host: 'anything' });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', ready: true, runs: 0 });
    expect((await get(dashboard, '/readyz')).status).toBe(200);
  });
});

describe('dashboard token (issue 24, finding 4)', () => {
  it('requires the token on pages, the API and /live; Bearer, a Basic password, or ?token= then its cookie', async () => {
    const lines: string[] = [];
    const dashboard = await start({ token: 'secret', log: createOpsLog({ server: 'dashboard', enabled: true, write: (line) => lines.push(line) }) });
    const refused = await get(dashboard, '/');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Basic realm="actorgym dashboard"/);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect((await get(dashboard, '/api/runs', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await get(dashboard, '/api/runs?token=wrong')).status).toBe(401);
    expect(await live(dashboard)).toBe(401);

    expect((await get(dashboard, '/api/runs', { authorization: 'Bearer secret' })).status).toBe(200);
    const basic = await get(dashboard, '/', { authorization: `Basic ${Buffer.from('me:secret').toString('base64')}` });
    expect(basic.status).toBe(200);

    const link = await get(dashboard, '/?token=secret');
    expect(link.status).toBe(303);
    expect(link.headers.location).toBe('/');
    const cookie = (link.headers['set-cookie']?.[0] ?? '').split(';')[0] as string;
    expect(cookie).toMatch(new RegExp(`^actorgym_dashboard_${dashboard.port}=[0-9a-f]{64}$`));
    expect(cookie).not.toContain('secret');
    expect(link.headers['set-cookie']?.[0]).toContain('HttpOnly; SameSite=Strict');
    expect((await get(dashboard, '/', { cookie })).status).toBe(200);
    expect((await get(dashboard, '/api/runs', { cookie })).status).toBe(200);
    expect(await live(dashboard, { cookie })).toBe('hello');
    expect((await get(dashboard, '/', { cookie: `actorgym_dashboard_${dashboard.port}=${'0'.repeat(64)}` })).status).toBe(401);

    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(
      expect.arrayContaining([expect.objectContaining({ server: 'dashboard', event: 'request.refused', reason: 'UNAUTHORIZED', path: '/live' }), expect.objectContaining({ event: 'live.opened' })]),
    );
    expect(lines.join('')).not.toContain('secret');
  });

  it('is required beyond loopback (nothing starts without one; issue 40) and not on loopback', async () => {
    expect(dashboardAccess('127.0.0.1', 'T')).toEqual({});
    expect(dashboardAccess('localhost', undefined)).toEqual({});
    expect(dashboardAccess('0.0.0.0', 'T')).toEqual({ token: 'T' });
    expect(() => dashboardAccess('10.1.2.3', undefined)).toThrow(/--host 10\.1\.2\.3 is beyond loopback: .*needs a token/);
    expect(() => dashboardAccess('0.0.0.0', '', '--dashboard-host')).toThrow(/--dashboard-host 0\.0\.0\.0 is beyond loopback/);
    await expect(startDashboard({ host: '0.0.0.0' })).rejects.toMatchObject({ code: 'TOKEN_REQUIRED' });
  });

  it('answers to this machine\'s name and interface addresses, and beyond loopback to the bind address', () => {
    // This machine's own names pass wherever it is bound (issue 40): loopback too.
    expect(defaultAllowedHosts('127.0.0.1')).toContain(os.hostname());
    const wildcard = defaultAllowedHosts('0.0.0.0');
    expect(wildcard).toContain(os.hostname());
    expect(wildcard).not.toContain('0.0.0.0');
    expect(defaultAllowedHosts('10.1.2.3')[0]).toBe('10.1.2.3');
    expect(defaultAllowedHosts('fd00::1')[0]).toBe('[fd00::1]');
  });
});
