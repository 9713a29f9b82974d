import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../envs/web/browser/playwright.ts';
import { LEAVE_MARKER_SCRIPT, settle, trackNavigations } from '../../../envs/web/browser/settle.ts';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startFixtureServer, type FixtureServer } from '../../../envs/web/fixtures/fixture-server.ts';

// A link whose target answers late: the click returns long before the new document commits.
const SLOW_LINK = (url: string): string =>
  `<!doctype html><title>Start</title><a id="go" href="${url}/slow?ms=600">Slow link</a>` +
  `<button id="later" onclick="setTimeout(() => { location.href = '${url}/slow?ms=300'; }, 10)">Later</button>` +
  `<button id="stay" onclick="this.textContent = 'Stayed'">Stay</button>`;

describe.skipIf(!runBrowserTests)('settle after an action', () => {
  let server: FixtureServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    server = await startFixtureServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
    await server.close();
  });
  beforeEach(async () => {
    await context?.close();
    context = await browser.newContext();
    await context.addInitScript(LEAVE_MARKER_SCRIPT);
    page = await context.newPage();
    await page.goto(`${server.url}/index.html`);
    await page.setContent(SLOW_LINK(server.url));
  });

  // No tracker on the page: this is the starved machine where the navigation request event has
  // not reached us when the renderer answers. The wait must still end on the new document.
  it('waits for a slow navigation a click began, even when the request event is missed', async () => {
    await page.click('#go', { noWaitAfter: true });
    expect(await settle(page, 10_000)).toBe(true);
    expect(page.url()).toBe(`${server.url}/slow?ms=600`);
    expect(await page.textContent('h1')).toBe('Slow page after 600 ms');
  });

  it('waits for a navigation a handler starts in a later task', async () => {
    trackNavigations(page);
    await page.click('#later', { noWaitAfter: true });
    expect(await settle(page, 10_000)).toBe(true);
    expect(await page.textContent('h1')).toBe('Slow page after 300 ms');
  });

  it('returns at once when the action did not navigate', async () => {
    trackNavigations(page);
    await page.click('#stay', { noWaitAfter: true });
    // A wait for a navigation that never comes would end false at the deadline.
    expect(await settle(page, 10_000)).toBe(true);
    expect(await page.textContent('#stay')).toBe('Stayed');
  });

  it('gives up with false at the timeout and clears the flag, so the next settle is quick', async () => {
    await page.evaluate(`window.__actorgymLeaving = true`); // a navigation the browser dropped
    expect(await settle(page, 300)).toBe(false);
    expect(await settle(page, 2_000)).toBe(true);
  });
});
