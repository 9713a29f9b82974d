import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { parseWebAction } from '../../../envs/web/browser/grammar.ts';
import { formatWebObservation } from '../../../envs/web/browser/observation.ts';
import { openWebSession, type WebSession } from '../../../envs/web/browser/web-session.ts';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startFixtureServer, type FixtureServer } from '../../../envs/web/fixtures/fixture-server.ts';

const idOf = (tree: string, pattern: RegExp): string => {
  const line = tree.split('\n').find((l) => pattern.test(l));
  if (!line) throw new Error(`no line matches ${pattern} in:\n${tree}`);
  return /\[(\d+)\]/.exec(line)![1]!;
};

describe.skipIf(!runBrowserTests)('web session observation', () => {
  let server: FixtureServer;
  const host = new BrowserHost({ idleCloseMs: 60_000 });
  const open = (instanceId: string, path: string, extra: { viewportOnly?: boolean; maxTreeChars?: number } = {}): Promise<WebSession> =>
    openWebSession({ instanceId, startUrl: server.url + path, host, viewportOnly: false, ...extra });

  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await host.close();
    await server.close();
  });

  it('lists links, buttons and inputs with ids, roles, names and properties', async () => {
    const session = await open('obs-1', '/index.html');
    const observation = await session.observe();
    expect(observation.url).toBe(`${server.url}/index.html`);
    expect(observation.title).toBe('Fixture Home');
    expect(observation.tabs).toEqual([{ index: 0, title: 'Fixture Home', current: true }]);
    const lines = observation.tree.split('\n');
    expect(lines[0]).toMatch(/^\[\d+\] RootWebArea 'Fixture Home' focused: True$/);
    for (const pattern of [
      /^\t\[\d+\] link 'Second page'$/,
      /^\t\[\d+\] heading 'Fixture home'$/,
      /^\t\t\[\d+\] textbox 'Search terms' required: True$/,
      /^\t\t\[\d+\] button 'Search'$/,
      /^\t\[\d+\] combobox 'Sort by' value: 'Name'/,
      /^\t\[\d+\] checkbox 'I agree' checked: false$/,
    ]) {
      expect(lines.some((line) => pattern.test(line)), `${pattern} in\n${observation.tree}`).toBe(true);
    }
    // Every id is distinct.
    const ids = lines.map((l) => /\[(\d+)\]/.exec(l)?.[1]).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
    await session.close();
  });

  it("formats WebArena's full observation", async () => {
    const session = await open('obs-2', '/page2.html');
    const observation = await session.observe();
    const text = formatWebObservation(observation, 'Go home', 'click [3]');
    expect(text).toBe(
      `OBSERVATION:\nTab 0 (current): Fixture Second\n\n${observation.tree}\nURL: ${server.url}/page2.html\nOBJECTIVE: Go home\nPREVIOUS ACTION: click [3]`,
    );
    expect(formatWebObservation(observation, 'Go home', undefined, 'Element [9] is not in the current observation.')).toMatch(
      /^OBSERVATION:\nElement \[9\] is not in the current observation\.\n\nTab 0 \(current\)[\s\S]*PREVIOUS ACTION: None$/,
    );
    await session.close();
  });

  it('shows only what is on screen with viewportOnly, and scroll moves it', async () => {
    const session = await open('obs-3', '/tall.html', { viewportOnly: true });
    const first = await session.observe();
    expect(first.tree).toContain("link 'Link in section 1'");
    expect(first.tree).not.toContain("link 'Link in section 10'");
    const scroll = parseWebAction('scroll [down]');
    if (!scroll.ok) throw new Error(scroll.error);
    await session.act(scroll.action);
    await session.act(scroll.action);
    const later = (await session.observe()).tree;
    expect(later).not.toContain("link 'Link in section 1'");
    expect(later).toMatch(/link 'Link in section [5-8]'/);
    // An id scrolled out of view is no longer actionable.
    const click = parseWebAction(`click [${idOf(first.tree, /Link in section 1'/)}]`);
    if (!click.ok) throw new Error(click.error);
    expect((await session.act(click.action)).message).toMatch(/not in the current observation/);
    await session.close();
  });

  it('cuts a long tree at the budget and says so', async () => {
    const session = await open('obs-4', '/tall.html', { maxTreeChars: 400 });
    const observation = await session.observe();
    expect(observation.truncated).toBe(true);
    expect(observation.tree.length).toBeLessThan(520);
    expect(observation.tree).toMatch(/\[\.\.\. \d+ more lines not shown: the tree is cut at 400 characters\]$/);
    await session.close();
  });

  it('sends the instance header with every request of the session, and only its own', async () => {
    const a = await open('inst-a', '/whoami');
    const b = await open('inst-b', '/whoami');
    expect((await a.observe()).tree).toContain("heading 'Instance inst-a'");
    expect((await b.observe()).tree).toContain("heading 'Instance inst-b'");
    const go = parseWebAction(`goto [${server.url}/whoami?again]`);
    if (!go.ok) throw new Error(go.error);
    await a.act(go.action);
    expect((await a.observe()).tree).toContain("heading 'Instance inst-a'");
    expect(server.instances).not.toContain('(none)');
    await a.close();
    await b.close();
  });

  it('rejects an instance id that cannot be a header value', async () => {
    await expect(open('bad id\n', '/index.html')).rejects.toThrow(/instanceId must be/);
  });

  it('fails to open with ENV_INTERNAL naming the start page when it cannot load', async () => {
    await expect(openWebSession({ instanceId: 'x', startUrl: 'http://127.0.0.1:9/', host, navigationTimeoutMs: 3000 })).rejects.toMatchObject({
      code: 'ENV_INTERNAL',
      message: expect.stringContaining('could not open its start page http://127.0.0.1:9/'),
    });
  });
});
