/**
 * The sandbox's proxy and rule without a browser: what it forwards, what it refuses, the
 * instance header it sets, CONNECT tunnels only to allowed origins; and goto's URL check.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoTarget, hostPort, isAllowedUrl } from '../../../envs/web/browser/sandbox.ts';
import { BLOCKED_HEADER, startSandboxProxy, UNREACHABLE_HEADER, type SandboxProxy } from '../../../envs/web/browser/sandbox-proxy.ts';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A GET through the proxy (absolute-form, as a browser sends it). */
function viaProxy(proxy: SandboxProxy, url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: url, headers: { host: new URL(url).host, ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The status line a CONNECT to `target` gets. */
function connectStatus(proxy: SandboxProxy, target: string): Promise<string> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`));
    socket.once('data', (data: Buffer) => {
      resolve(data.toString().split('\r\n')[0]!);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

describe('sandbox rule', () => {
  const allowed = ['http://127.0.0.1:4000'];
  it('lets goto open the allowed origin and about:blank, adding http:// when the scheme is missing', () => {
    expect(gotoTarget('127.0.0.1:4000/cart', allowed)).toBe('http://127.0.0.1:4000/cart');
    expect(gotoTarget('about:blank', allowed)).toBe('about:blank');
  });
  it('refuses other ports, hosts and schemes with the message the agent reads', () => {
    for (const url of ['http://127.0.0.1:4001/', 'localhost:4000', 'https://127.0.0.1:4000/', 'file:///etc/passwd', 'data:text/html,x', 'chrome://version', 'javascript:alert(1)', 'about:config']) {
      const target = gotoTarget(url, allowed);
      expect(target, url).toEqual({ error: expect.stringMatching(/^blocked: .+ is outside this task's sites \(allowed: http:\/\/127\.0\.0\.1:4000\)$/) });
    }
    expect(gotoTarget(`data:text/html,${'x'.repeat(1000)}`, allowed)).toEqual({ error: expect.stringContaining('x…') });
    expect(isAllowedUrl('not a url', allowed)).toBe(false);
    expect(hostPort('https://shop.example')).toBe('shop.example:443');
  });
});

describe('sandbox proxy', () => {
  let site: Server;
  let siteOrigin: string;
  let other: Server;
  let otherOrigin: string;
  const otherHits: string[] = [];
  let proxy: SandboxProxy;
  const refused: string[] = [];

  beforeAll(async () => {
    site = createServer((req, res) => res.end(`instance=${req.headers['x-actorgym-instance']} path=${req.url}`));
    siteOrigin = await listen(site);
    other = createServer((req, res) => {
      otherHits.push(req.url ?? '');
      res.end('secret');
    });
    otherOrigin = await listen(other);
    proxy = await startSandboxProxy({ allowedOrigins: [siteOrigin], header: { name: 'x-actorgym-instance', value: 'mine' }, onBlocked: (url) => refused.push(url) });
  });
  afterAll(async () => {
    await proxy?.close();
    site?.close();
    other?.close();
  });

  it('forwards to an allowed origin and sets the instance header over the one sent', async () => {
    const response = await viaProxy(proxy, `${siteOrigin}/a?b=1`, { 'x-actorgym-instance': 'web-2' });
    expect(response).toMatchObject({ status: 200, body: 'instance=mine path=/a?b=1' });
  });

  it('refuses any other origin with a marked 403 page, never contacting it', async () => {
    const response = await viaProxy(proxy, `${otherOrigin}/observation?env_idx=0`);
    expect(response.status).toBe(403);
    expect(response.headers[BLOCKED_HEADER]).toBe('1');
    expect(response.body).toContain(`blocked: ${otherOrigin}/observation?env_idx=0 is outside this task&#39;s sites`);
    expect(otherHits).toEqual([]);
    expect(refused).toContain(`${otherOrigin}/observation?env_idx=0`);
  });

  it('opens CONNECT tunnels only to allowed origins', async () => {
    expect(await connectStatus(proxy, hostPort(otherOrigin))).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectStatus(proxy, hostPort(siteOrigin))).toBe('HTTP/1.1 200 Connection Established');
    expect(otherHits).toEqual([]);
  });

  it('answers an allowed origin that is down with 502 naming the error', async () => {
    const down = createServer();
    const origin = await listen(down);
    await new Promise<void>((resolve) => down.close(() => resolve()));
    const closedProxy = await startSandboxProxy({ allowedOrigins: [origin] });
    try {
      const response = await viaProxy(closedProxy, `${origin}/`);
      expect(response.status).toBe(502);
      expect(response.headers[UNREACHABLE_HEADER]).toBe('ECONNREFUSED');
    } finally {
      await closedProxy.close();
    }
  });
});
