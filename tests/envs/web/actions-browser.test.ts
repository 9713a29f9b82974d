import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserHost } from '../../../envs/web/browser/browser-host.ts';
import { parseWebAction } from '../../../envs/web/browser/grammar.ts';
import type { WebObservation } from '../../../envs/web/browser/observation.ts';
import { openWebSession, type ActResult, type WebSession } from '../../../envs/web/browser/web-session.ts';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startFixtureServer, type FixtureServer } from '../../../envs/web/fixtures/fixture-server.ts';

/** A port nothing listens on: bound, then released. */
const closedPort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
};

const idOf = (observation: WebObservation, pattern: RegExp): string => {
  const line = observation.tree.split('\n').find((l) => pattern.test(l));
  if (!line) throw new Error(`no line matches ${pattern} in:\n${observation.tree}`);
  return /\[(\d+)\]/.exec(line)![1]!;
};

describe.skipIf(!runBrowserTests)('web session actions', () => {
  let server: FixtureServer;
  let session: WebSession;
  const host = new BrowserHost({ idleCloseMs: 60_000 });
  let seen: WebObservation;
  /** An allowed origin nothing listens on. */
  let closed: number;

  /** Runs one action in the grammar and observes the page after it. */
  const act = async (text: string): Promise<ActResult> => {
    const parsed = parseWebAction(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const result = await session.act(parsed.action);
    seen = await session.observe();
    return result;
  };
  const home = async (): Promise<void> => {
    await act(`goto [${server.url}/index.html]`);
  };

  beforeAll(async () => {
    server = await startFixtureServer();
    closed = await closedPort();
    session = await openWebSession({ instanceId: 'act-1', startUrl: `${server.url}/index.html`, allowedOrigins: [server.url, `http://127.0.0.1:${closed}`], host, viewportOnly: false });
    seen = await session.observe();
  });
  afterAll(async () => {
    await session.close();
    await host.close();
    await server.close();
  });

  it('click on a link navigates; go_back and go_forward walk the history', async () => {
    await home();
    expect(await act(`click [${idOf(seen, /link 'Second page'/)}]`)).toEqual({ ok: true, message: '', stopped: false });
    expect(seen.url).toBe(`${server.url}/page2.html`);
    expect(seen.tree).toContain("heading 'Second page'");
    expect((await act('go_back')).ok).toBe(true);
    expect(seen.url).toBe(`${server.url}/index.html`);
    expect((await act('go_forward')).ok).toBe(true);
    expect(seen.url).toBe(`${server.url}/page2.html`);
    expect(await act('go_forward')).toMatchObject({ ok: false, message: "There is no next page in this tab's history." });
  });

  it('click on a button runs its handler', async () => {
    await home();
    await act(`click [${idOf(seen, /button 'Count clicks'/)}]`);
    await act(`click [${idOf(seen, /button 'Clicked 1 times'/)}]`);
    expect(seen.tree).toContain("button 'Clicked 2 times'");
  });

  it('type fills an input and Enter submits its form; [0] does not submit', async () => {
    await home();
    await act(`type [${idOf(seen, /textbox 'Search terms'/)}] [red shoes] [0]`);
    expect(seen.url).toBe(`${server.url}/index.html`);
    expect(seen.tree).toMatch(/textbox 'Search terms' value: 'red shoes'/);
    // Typing again replaces the value; the default flag presses Enter.
    await act(`type [${idOf(seen, /textbox 'Search terms'/)}] [boots]`);
    expect(seen.url).toBe(`${server.url}/search?q=boots`);
    expect(seen.tree).toContain("heading 'Results for boots'");
  });

  it('type chooses an option of a select, and click on an option chooses it too', async () => {
    await home();
    await act(`type [${idOf(seen, /combobox 'Sort by'/)}] [Price] [0]`);
    expect(seen.tree).toContain("StaticText 'Sorted by price'");
    await act(`click [${idOf(seen, /option 'Name'/)}]`);
    expect(seen.tree).toContain("StaticText 'Sorted by name'");
    expect(await act(`type [${idOf(seen, /combobox 'Sort by'/)}] [Colour] [0]`)).toMatchObject({ ok: false, message: expect.stringContaining("has no option 'Colour'; its options are 'Name', 'Price'.") });
  });

  it('click on a checkbox checks it; hover fires mouseover', async () => {
    await home();
    await act(`click [${idOf(seen, /checkbox 'I agree'/)}]`);
    expect(seen.tree).toMatch(/checkbox 'I agree' (focused: True )?checked: true/);
    await act(`hover [${idOf(seen, /StaticText 'Hover over me'/)}]`);
    expect(seen.tree).toContain("StaticText 'Hovered yes'");
  });

  it('press sends a key combination to the page; an unknown key is a message', async () => {
    await home();
    await act('press [Control+k]');
    expect(seen.tree).toContain("StaticText 'Last key Control+k'");
    expect(await act('press [NotAKey]')).toMatchObject({ ok: false, message: expect.stringContaining('Unknown key') });
  });

  it('new_tab, tab_focus and close_tab manage the tabs; a bad tab index is a message', async () => {
    await home();
    await act('new_tab');
    expect(seen.tabs.map((t) => t.current)).toEqual([false, true]);
    expect(seen.url).toBe('about:blank');
    await act(`goto [${server.url}/page2.html]`);
    expect(seen.tabs).toEqual([
      { index: 0, title: 'Fixture Home', current: false },
      { index: 1, title: 'Fixture Second', current: true },
    ]);
    await act('tab_focus [0]');
    expect(seen.url).toBe(`${server.url}/index.html`);
    expect(await act('tab_focus [2]')).toEqual({ ok: false, message: 'There is no tab 2: the open tabs are 0 to 1.', stopped: false });
    await act('tab_focus [1]');
    await act('close_tab');
    expect(seen.tabs).toEqual([{ index: 0, title: 'Fixture Home', current: true }]);
    // Closing the last tab leaves an empty one.
    await act('close_tab');
    expect(seen.tabs).toEqual([{ index: 0, title: '', current: true }]);
    expect(seen.url).toBe('about:blank');
  });

  it('goto opens http(s) URLs; other schemes and unreachable hosts are messages', async () => {
    await act(`goto [${server.url}/page2.html]`);
    expect(seen.url).toBe(`${server.url}/page2.html`);
    expect(await act('goto [file:///etc/passwd]')).toMatchObject({ ok: false, message: expect.stringMatching(/^blocked: file:\/\/\/etc\/passwd is outside this task's sites/) });
    expect(seen.url).toBe(`${server.url}/page2.html`); // a blocked goto never leaves the page
    expect(await act(`goto [http://127.0.0.1:${closed}/]`)).toMatchObject({ ok: false, message: expect.stringMatching(/^Could not open http:\/\/127\.0\.0\.1:\d+\/: ECONNREFUSED/) });
    expect(seen.url).not.toBe(`${server.url}/page2.html`);
  });

  it('an id that is not in the current observation is a message, not an exception', async () => {
    await home();
    expect(await act('click [999999]')).toEqual({ ok: false, message: 'Element [999999] is not in the current observation; use an id from the page shown.', stopped: false });
    // An id from the previous page is gone once the page changed.
    const searchBox = idOf(seen, /textbox 'Search terms'/);
    await act(`goto [${server.url}/page2.html]`);
    expect((await act(`type [${searchBox}] [x] [0]`)).ok).toBe(false);
  });

  it('stop ends with the answer', async () => {
    expect(await act('stop [42 items]')).toEqual({ ok: true, message: '', stopped: true, answer: '42 items' });
  });

  it('takes a screenshot of the current tab', async () => {
    await home();
    const png = await session.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});
