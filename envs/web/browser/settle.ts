/**
 * Waits for what an action started: a click, Enter in a form or a script may begin a
 * navigation a moment after the input event returns. Each page counts its main-frame
 * navigation requests; after an action we give the renderer one frame to start one, then wait
 * for the new document's `load` (bounded by the navigation timeout).
 */
import type { Page, Request } from 'playwright-core';

// A string: it runs in the page (lib has no DOM types). rAF may not fire in a hidden tab, hence the 50 ms fallback.
const SETTLE_SCRIPT =
  'new Promise((resolve) => { let done = false; const go = () => { if (!done) { done = true; setTimeout(resolve, 0); } }; requestAnimationFrame(go); setTimeout(go, 50); })';

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

/**
 * Resolves when `page` has no navigation in flight, or with `false` when one did not finish
 * within `timeoutMs`.
 */
export async function settle(page: Page, timeoutMs: number): Promise<boolean> {
  try {
    // One animation frame and a task: long enough for a submit or click handler to start navigating.
    await page.evaluate(SETTLE_SCRIPT);
  } catch {
    // The document went away under us: a navigation is already under way.
  }
  const pending = trackers.get(page)?.inFlight;
  if (!pending) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([pending.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
