import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { parseWebAction } from '../../../envs/web/browser/grammar.ts';
import { chromiumBrowserPids } from '../../../envs/web/browser/processes.ts';
import { openWebSession } from '../../../envs/web/browser/web-session.ts';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startFixtureServer, type FixtureServer } from '../../../envs/web/fixtures/fixture-server.ts';

const waitFor = async (condition: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

describe.skipIf(!runBrowserTests)('browser host', () => {
  let server: FixtureServer;
  const host = new BrowserHost({ idleCloseMs: 60_000 });

  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await host.close();
    await server.close();
  });

  it('shares one browser between sessions, each with its own context', async () => {
    const a = await openWebSession({ instanceId: 'a', startUrl: `${server.url}/index.html`, host });
    const b = await openWebSession({ instanceId: 'b', startUrl: `${server.url}/page2.html`, host });
    expect(host.launchCount).toBe(1);
    expect(host.sessionCount).toBe(2);
    expect(chromiumBrowserPids()).toHaveLength(1);
    expect((await a.observe()).title).toBe('Fixture Home');
    expect((await b.observe()).title).toBe('Fixture Second');
    await a.close();
    await a.close(); // idempotent
    await expect(a.observe()).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    expect(host.sessionCount).toBe(1);
    await b.close();
  });

  it('a browser crash mid-episode loses every live session (ENV_LOST); the next session relaunches', async () => {
    const launches = host.launchCount;
    const a = await openWebSession({ instanceId: 'crash-a', startUrl: `${server.url}/index.html`, host });
    const b = await openWebSession({ instanceId: 'crash-b', startUrl: `${server.url}/index.html`, host });
    await a.observe();
    const [pid] = chromiumBrowserPids();
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => a.lost !== undefined && b.lost !== undefined, 'the sessions to be marked lost');
    const click = parseWebAction('click [1]');
    if (!click.ok) throw new Error(click.error);
    await expect(a.act(click.action)).rejects.toMatchObject({ code: 'ENV_LOST', message: expect.stringContaining('crash-a was lost: the browser crashed') });
    await expect(b.observe()).rejects.toMatchObject({ code: 'ENV_LOST' });
    await a.close(); // closing a lost session is fine
    await b.close();

    const c = await openWebSession({ instanceId: 'crash-c', startUrl: `${server.url}/page2.html`, host });
    expect(host.launchCount).toBe(launches + 1);
    expect((await c.observe()).tree).toContain("heading 'Second page'");
    await c.close();
  });

  it('closing the host from outside loses its sessions; the host can be used again', async () => {
    const a = await openWebSession({ instanceId: 'closed-a', startUrl: `${server.url}/index.html`, host });
    await host.close();
    await expect(a.observe()).rejects.toMatchObject({ code: 'ENV_LOST' });
    const b = await openWebSession({ instanceId: 'closed-b', startUrl: `${server.url}/index.html`, host });
    expect((await b.observe()).title).toBe('Fixture Home');
    await b.close();
  });

  it('closes the browser when idle after the last session', async () => {
    const idle = new BrowserHost({ idleCloseMs: 0 });
    const before = chromiumBrowserPids().length;
    const a = await openWebSession({ instanceId: 'idle', startUrl: `${server.url}/index.html`, host: idle });
    expect(chromiumBrowserPids()).toHaveLength(before + 1);
    await a.close();
    await waitFor(() => chromiumBrowserPids().length === before, 'the idle browser to exit');
  });
});
