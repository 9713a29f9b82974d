/**
 * Waits for what an action started: a click, Enter in a form or a script may begin a
 * navigation a moment after the input event returns. After an action we give the renderer one
 * frame to start one, then wait until the tab shows a new, fully loaded document (bounded by the
 * navigation timeout).
 *
 * Two signals say a navigation began: the page's own `beforeunload` (a flag set by the init
 * script `LEAVE_MARKER_SCRIPT`, read in the same evaluation that waits the frame) and the
 * main-frame navigation request seen over CDP. The request event and the renderer's answer travel
 * separately, and on a starved machine the answer can arrive first; trusting the event alone read
 * the old page (27 of 64 oracle episodes lost at 32 envs). So the end of the wait is checked on the
 * document itself: `readyState` complete on a window that has not set the flag.
 */
import type { Page, Request } from 'playwright-core';

const FLAG = '__actorgymLeaving';

/** Add to every browser context (`context.addInitScript`) before its first page opens. */
export const LEAVE_MARKER_SCRIPT = `addEventListener('beforeunload', () => { window.${FLAG} = true; }, true);`;

// Strings: they run in the page (lib has no DOM types). rAF may not fire in a hidden tab, hence the 50 ms fallback.
const SETTLE_SCRIPT = `new Promise((resolve) => { let done = false; const go = () => { if (!done) { done = true; setTimeout(() => resolve(window.${FLAG} === true), 0); } }; requestAnimationFrame(go); setTimeout(go, 50); })`;
const ARRIVED_SCRIPT = `document.readyState === 'complete' && window.${FLAG} !== true`;
const POLL_MS = 50;

const trackers = new WeakMap<Page, NavigationTracker>();

class NavigationTracker {
  private pending: Promise<void> | undefined;

  constructor(private readonly page: Page) {
    page.on('request', (request) => this.onRequest(request));
  }

  private onRequest(request: Request): void {
    if (!request.isNavigationRequest() || request.frame() !== this.page.mainFrame()) return;
    const page = this.page;
    const done = new Promise<void>((resolve) => {
      const finish = (): void => {
        page.off('load', finish);
        page.off('requestfailed', failed);
        page.off('close', finish);
        resolve();
      };
      const failed = (r: Request): void => {
        if (r === request) finish();
      };
      page.on('load', finish);
      page.on('requestfailed', failed);
      page.on('close', finish);
    });
    this.pending = done;
    void done.then(() => {
      if (this.pending === done) this.pending = undefined;
    });
  }

  get inFlight(): Promise<void> | undefined {
    return this.pending;
  }
}

/** Starts counting navigations on `page`; call once when the page is created. */
export function trackNavigations(page: Page): void {
  if (!trackers.has(page)) trackers.set(page, new NavigationTracker(page));
}

/** `work`'s value, or `undefined` once `deadline` (epoch ms) passes first. */
async function before<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves `true` when `page` has no navigation in flight (none began, or the new document has
 * loaded), or `false` when one did not finish within `timeoutMs`.
 */
export async function settle(page: Page, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let leaving: boolean;
  try {
    // One animation frame and a task: long enough for a submit or click handler to start navigating.
    leaving = (await before(page.evaluate(SETTLE_SCRIPT), deadline)) === true;
  } catch {
    // The document went away under us: a navigation is already under way.
    leaving = true;
  }
  const pending = trackers.get(page)?.inFlight;
  if (!leaving && !pending) return true;
  if (pending && (await before(pending.then(() => true), deadline)) === undefined) return false;
  while (Date.now() < deadline) {
    if (page.isClosed()) return true;
    const arrived = await before(page.evaluate(ARRIVED_SCRIPT).catch(() => false), deadline);
    if (arrived === true) return true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  // A navigation the browser dropped (a download, a 204) leaves the old page flagged; clear it so
  // the next action does not wait out the timeout again.
  await page.evaluate(`window.${FLAG} = false`).catch(() => undefined);
  return false;
}
