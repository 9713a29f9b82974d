/**
 * The web sandbox probed through a real browser session (issue 39): a test "site" is the only
 * allowed origin, and a second server on another port of this machine holds a secret, as an env
 * server's HTTP API would. Every probe — goto another port, file:, data:, chrome:, javascript:,
 * view-source:, a site redirect to the secret port, a page's fetch and iframe to it, a page
 * naming another instance's id — is blocked, and the secret server never receives a request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { parseWebAction } from '../../../envs/web/browser/grammar.ts';
import type { WebObservation } from '../../../envs/web/browser/observation.ts';
import { openWebSession, type ActResult, type WebSession } from '../../../envs/web/browser/web-session.ts';
import { INSTANCE_HEADER } from '../../../envs/web/site-server.ts';
import { runBrowserTests } from './fixtures/chromium.ts';

const SECRET = `SECRET-${Math.random().toString(36).slice(2)}`;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const page = (title: string, body: string): string => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe.skipIf(!runBrowserTests)('web sandbox (browser session)', () => {
  const host = new BrowserHost({ idleCloseMs: 60_000 });
  const secretHits: string[] = [];
  let secret: { server: Server; origin: string };
  let site: { server: Server; origin: string };
  let session: WebSession;
  const seen: WebObservation[] = [];

  const act = async (text: string): Promise<ActResult> => {
    const parsed = parseWebAction(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const result = await session.act(parsed.action);
    seen.push(await session.observe());
    return result;
  };
  const last = (): WebObservation => seen.at(-1)!;
  /** Observes until `done` holds for the tree (a page script finishing), at most ~5 s. */
  const observeUntil = async (done: (tree: string) => boolean): Promise<WebObservation> => {
    for (let i = 0; i < 50; i++) {
      const observation = await session.observe();
      seen.push(observation);
      if (done(observation.tree)) return observation;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the page never finished:\n${last().tree}`);
  };
  const home = async (): Promise<void> => {
    expect((await act(`goto [${site.origin}/]`)).ok).toBe(true);
  };

  beforeAll(async () => {
    secret = await listen((req, res) => {
      secretHits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
      res.end(page('Secret', `<p>${SECRET}</p>`));
    });
    const target = `${secret.origin}/observation?env_idx=0`;
    site = await listen((req, res) => {
      const html = (body: string) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page('Site', body));
      };
      switch (req.url) {
        case '/redirect':
          res.writeHead(302, { location: target }).end();
          return;
        case '/fetch':
          return html(`<p id="out">waiting</p><script>fetch(${JSON.stringify(target)}).then((r) => r.text()).then((t) => { out.textContent = 'got ' + t; }, () => { out.textContent = 'fetch failed'; });</script>`);
        case '/iframe':
          // The image is refused too, but not told: it is not content an agent reads.
          return html(`<h1>Framed</h1><img src="${secret.origin}/pixel.png" alt="pixel"><iframe src="${target}" title="frame"></iframe>`);
        case '/whoami':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`instance ${req.headers[INSTANCE_HEADER]}`);
          return;
        case '/spoof':
          return html(`<p id="out">waiting</p><script>fetch('/whoami', { headers: { '${INSTANCE_HEADER}': 'other-instance' } }).then((r) => r.text()).then((t) => { out.textContent = 'seen as ' + t; }, () => { out.textContent = 'fetch failed'; });</script>`);
        default:
          return html('<h1>Home page</h1>');
      }
    });
    session = await openWebSession({ instanceId: 'sandbox-1', startUrl: `${site.origin}/`, allowedOrigins: [site.origin], host, viewportOnly: false });
  });
  afterAll(async () => {
    // The sandbox's promise, over every probe: the secret's server was never reached and no observation showed it.
    expect(secretHits).toEqual([]);
    for (const observation of seen) expect(JSON.stringify(observation)).not.toContain(SECRET);
    await session?.close();
    await host.close();
    secret?.server.close();
    site?.server.close();
  });

  it('refuses goto to another port of this machine, with or without a scheme, and stays on the page', async () => {
    await home();
    for (const url of [`${secret.origin}/observation?env_idx=0`, `localhost:${secret.origin.split(':').at(-1)}/`, `https://127.0.0.1:${secret.origin.split(':').at(-1)}/`]) {
      const result = await act(`goto [${url}]`);
      expect(result).toMatchObject({ ok: false, stopped: false });
      expect(result.message).toMatch(/^blocked: \S+ is outside this task's sites \(allowed: http:\/\/127\.0\.0\.1:\d+\)$/);
      expect(result.message).toContain(`(allowed: ${site.origin})`);
      expect(last().url).toBe(`${site.origin}/`);
      expect(last().tree).toContain("heading 'Home page'");
    }
  });

  it('refuses file:, data:, chrome:, javascript: and view-source: URLs without opening them', async () => {
    await home();
    const probes: readonly (readonly [string, RegExp])[] = [
      ['file:///etc/passwd', /root:/],
      ['data:text/html,<h1>Data page</h1>', /Data page'/],
      ['chrome://version', /Command Line|Chromium/],
      ["javascript:document.body.innerHTML='<h1>Script ran</h1>'", /Script ran'/],
      [`view-source:${site.origin}/`, /DOCTYPE/i],
    ];
    for (const [url, content] of probes) {
      const result = await act(`goto [${url}]`);
      expect(result.ok).toBe(false);
      expect(result.message.startsWith(`blocked: ${url.slice(0, 20)}`)).toBe(true);
      expect(last().url).toBe(`${site.origin}/`);
      expect(last().tree).not.toMatch(content);
    }
  });

  it("blocks a site's redirect to another port (Playwright's routing would not see the hop)", async () => {
    await home();
    const result = await act(`goto [${site.origin}/redirect]`);
    expect(result).toMatchObject({ ok: false, message: `blocked: ${secret.origin}/observation?env_idx=0 is outside this task's sites (allowed: ${site.origin}).` });
    expect(last().tree).toContain("heading 'Blocked'");
  });

  it("blocks a page's fetch and iframe to another port", async () => {
    await act(`goto [${site.origin}/fetch]`);
    await observeUntil((tree) => !tree.includes('waiting'));
    expect(last().tree).toContain('fetch failed');
    // The fetch ran after the page loaded, so the next action tells of it.
    expect((await act('scroll [down]')).message).toMatch(/^blocked: http:\/\/127\.0\.0\.1:\d+\/observation\?env_idx=0 is outside/);
    const framed = await act(`goto [${site.origin}/iframe]`);
    expect(framed.message).toMatch(/^blocked: http:\/\/127\.0\.0\.1:\d+\/observation\?env_idx=0 is outside[^\n]*\.$/);
    expect(framed.message).not.toContain('more blocked');
    expect(last().tree).toContain("heading 'Framed'");
  });

  it("sends this session's instance id even when a page names another instance's", async () => {
    await act(`goto [${site.origin}/spoof]`);
    await observeUntil((tree) => !tree.includes('waiting'));
    expect(last().tree).toContain('seen as instance sandbox-1');
    expect(last().tree).not.toContain('other-instance');
  });

  it('still opens pages of the allowed origin and about:blank', async () => {
    expect(await act(`goto [${site.origin}/whoami]`)).toEqual({ ok: true, message: '', stopped: false });
    expect(last().tree).toContain('instance sandbox-1');
    expect((await act('goto [about:blank]')).ok).toBe(true);
    expect(last().url).toBe('about:blank');
  });

  it('refuses a session whose start page is outside its allowed origins', async () => {
    await expect(openWebSession({ instanceId: 'sandbox-2', startUrl: `${secret.origin}/`, allowedOrigins: [site.origin], host })).rejects.toThrow(/outside allowedOrigins/);
  });
});
