/**
 * One env instance's browser: a browser context in the shared browser (browser-host.ts) that
 * sends `x-actorgym-instance: <id>` with every request, its tabs, and the last observation's ids.
 * `observe()` reads the current tab as WebArena does; `act()` runs one parsed action and returns
 * a message instead of throwing for anything the agent did wrong. After the browser or the page
 * crashes, every call throws EnvError('ENV_LOST') so the episode ends aborted.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { EnvError } from '../../contract.ts';
import { INSTANCE_HEADER } from '../sites/site-app.ts';
import type { AxElement } from './ax-tree.ts';
import { getBrowserHost, type BrowserHost, type HostedSession } from './browser-host.ts';
import { markElement, type TargetElement } from './element.ts';
import type { WebAction } from './grammar.ts';
import type { WebObservation, WebTab } from './observation.ts';
import { readPageTree } from './page-tree.ts';
import { SessionIds } from './session-ids.ts';
import { LEAVE_MARKER_SCRIPT, settle, trackNavigations } from './settle.ts';
import { errorMessage } from '../../error-message.ts';

export interface WebSessionOptions {
  /** Sent as the `x-actorgym-instance` header; the sites keep one state per id. */
  readonly instanceId: string;
  /** The page the first tab opens (http or https). */
  readonly startUrl: string;
  /** Window size in CSS pixels (default 1280×720, as WebArena). */
  readonly viewport?: { readonly width: number; readonly height: number };
  /** List only elements at least 60 % on screen, as WebArena's `current_viewport_only` (default true). */
  readonly viewportOnly?: boolean;
  /** Cut the tree text before this many characters (default 16000, about 4000 tokens). */
  readonly maxTreeChars?: number;
  /** Longest wait for filling a field or choosing an option (default 5000 ms). */
  readonly actionTimeoutMs?: number;
  /** Longest wait for a page load (default 15000 ms). */
  readonly navigationTimeoutMs?: number;
  /** Default: the process-wide host. */
  readonly host?: BrowserHost;
  /** A Playwright storage-state file (cookies, local storage) the context starts with: a logged-in user (WebArena's `storage_state`). */
  readonly storageState?: string;
}

export interface ActResult {
  /** False when the action could not be carried out; `message` says why. */
  readonly ok: boolean;
  /** Empty after a plain success; otherwise a sentence for the next observation. */
  readonly message: string;
  /** True for `stop [answer]`: the episode ends and the env evaluates `answer`. */
  readonly stopped: boolean;
  readonly answer?: string;
}

const DEFAULT_VIEWPORT = { width: 1280, height: 720 } as const;
const SCROLL = (sign: 1 | -1): string =>
  `(document.scrollingElement || document.body).scrollTop = (document.scrollingElement || document.body).scrollTop ${sign > 0 ? '+' : '-'} window.innerHeight;`;

const done = (message = ''): ActResult => ({ ok: true, message, stopped: false });
const failed = (message: string): ActResult => ({ ok: false, message, stopped: false });
const firstLine = (error: unknown): string =>
  errorMessage(error).split('\n')[0]!.replace(/^[\w.]+: /, '').trim();

/** Opens a session: a fresh context in the shared browser, one tab at `startUrl`. */
export async function openWebSession(options: WebSessionOptions): Promise<WebSession> {
  if (!/^[\w.:-]{1,128}$/.test(options.instanceId)) {
    throw new Error(`instanceId must be 1-128 letters, digits, '_', '.', ':' or '-', got '${options.instanceId}'`);
  }
  const session = new WebSession(options);
  await session.start();
  return session;
}

export class WebSession implements HostedSession {
  readonly instanceId: string;
  private readonly host: BrowserHost;
  private readonly viewport: { readonly width: number; readonly height: number };
  private readonly viewportOnly: boolean;
  private readonly maxTreeChars: number;
  private readonly actionTimeoutMs: number;
  private readonly navigationTimeoutMs: number;
  private context: BrowserContext | undefined;
  private current: Page | undefined;
  private readonly cdp = new Map<Page, CDPSession>();
  private elements: ReadonlyMap<string, AxElement> = new Map();
  private readonly ids = new SessionIds();
  private lostReason: string | undefined;
  private closed = false;

  constructor(private readonly options: WebSessionOptions) {
    this.instanceId = options.instanceId;
    this.host = options.host ?? getBrowserHost();
    this.viewport = options.viewport ?? DEFAULT_VIEWPORT;
    this.viewportOnly = options.viewportOnly ?? true;
    this.maxTreeChars = options.maxTreeChars ?? 16_000;
    this.actionTimeoutMs = options.actionTimeoutMs ?? 5000;
    this.navigationTimeoutMs = options.navigationTimeoutMs ?? 15_000;
  }

  /** @internal Called by openWebSession. */
  async start(): Promise<void> {
    const context = await this.host.newContext(this, {
      extraHTTPHeaders: { [INSTANCE_HEADER]: this.instanceId },
      viewport: this.viewport,
      acceptDownloads: false,
      serviceWorkers: 'block',
      ...(this.options.storageState !== undefined ? { storageState: this.options.storageState } : {}),
    });
    this.context = context;
    await context.addInitScript(LEAVE_MARKER_SCRIPT);
    context.on('page', (page) => this.adopt(page));
    const page = await context.newPage();
    this.current = page;
    try {
      await page.goto(this.options.startUrl, { waitUntil: 'load', timeout: this.navigationTimeoutMs });
    } catch (error) {
      await this.close();
      throw new EnvError('ENV_INTERNAL', `the web session could not open its start page ${this.options.startUrl}: ${firstLine(error)}`);
    }
  }

  /** The ids of the last observation and what they stand for (for oracles in the same process). */
  get shownElements(): ReadonlyMap<string, AxElement> {
    return this.elements;
  }

  /** Why the session was lost (browser or page crash), or undefined while it is usable. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /** @internal Called by the host when the browser goes away. */
  markLost(reason: string): void {
    this.lostReason ??= reason;
  }

  /**
   * The value of the JS expression `expression` in the current tab (JSON-serialisable values only);
   * rejects when it throws. For evaluators that read the page after the episode (WebArena's
   * program_html), never for the agent.
   */
  async evaluate(expression: string): Promise<unknown> {
    return this.guard(() => this.page().evaluate(expression));
  }

  /** The current tab as WebArena shows it: tabs, accessibility tree with ids, URL. */
  async observe(): Promise<WebObservation> {
    return this.guard(async () => {
      const page = this.page();
      await page.waitForLoadState('load', { timeout: this.navigationTimeoutMs }).catch(() => undefined);
      const tree = this.ids.renumber(await readPageTree(await this.cdpFor(page), {
        viewportOnly: this.viewportOnly,
        viewport: this.viewport,
        maxChars: this.maxTreeChars,
      }));
      this.elements = tree.elements;
      const pages = this.context!.pages();
      const tabs: WebTab[] = await Promise.all(
        pages.map(async (p, index) => ({ index, title: await p.title().catch(() => ''), current: p === page })),
      );
      return { tree: tree.text, url: page.url(), title: tabs.find((t) => t.current)?.title ?? '', tabs, truncated: tree.truncated };
    });
  }

  /** Runs one action. Mistakes (unknown id, bad tab, failed navigation) come back as `message`. */
  async act(action: WebAction): Promise<ActResult> {
    return this.guard(async () => {
      try {
        return await this.run(action);
      } catch (error) {
        if (this.lostReason || this.closed || (await this.browserGone(error))) throw error;
        return failed(`The action could not be completed: ${firstLine(error)}`);
      }
    });
  }

  /** The current tab as an image (PNG by default), for trajectory viewers. */
  async screenshot(options: { readonly type?: 'png' | 'jpeg'; readonly quality?: number } = {}): Promise<Buffer> {
    return this.guard(() => this.page().screenshot({ type: options.type ?? 'png', ...(options.quality !== undefined ? { quality: options.quality } : {}) }));
  }

  /** Closes the context and its tabs. Idempotent; safe after the browser was lost. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.host.release(this);
    await this.context?.close().catch(() => undefined);
    this.cdp.clear();
  }

  private async run(action: WebAction): Promise<ActResult> {
    const page = this.page();
    switch (action.kind) {
      case 'stop':
        return { ok: true, message: '', stopped: true, answer: action.answer };
      case 'click':
      case 'hover':
      case 'type': {
        const target = await this.target(page, action.id);
        if (typeof target === 'string') return failed(target);
        const timeout = this.actionTimeoutMs;
        const centre = target.centre;
        const needsBox = target.optionValue === undefined && !(action.kind === 'type' && target.options);
        if (needsBox && !centre) return failed(`Element [${action.id}] is not visible on the page.`);
        if (action.kind === 'hover') {
          await page.mouse.move(centre!.x, centre!.y);
          return done();
        }
        if (action.kind === 'click') {
          if (target.optionValue !== undefined) await target.locator.selectOption(target.optionValue, { timeout });
          else await page.mouse.click(centre!.x, centre!.y);
        } else if (target.options) {
          const wanted = action.text.trim().toLowerCase();
          const option = target.options.find(([, label]) => label.trim().toLowerCase() === wanted) ?? target.options.find(([value]) => value === action.text);
          if (!option) {
            const labels = target.options.map(([, label]) => `'${label}'`).join(', ');
            return failed(`Element [${action.id}] has no option '${action.text}'; its options are ${labels}.`);
          }
          await target.locator.selectOption(option[0], { timeout });
        } else {
          await page.mouse.click(centre!.x, centre!.y);
          if (target.editable) await target.locator.fill(action.text, { timeout });
          else await page.keyboard.type(action.text);
          if (action.pressEnter) await page.keyboard.press('Enter');
        }
        return this.settled(page);
      }
      case 'press':
        await page.keyboard.press(action.keys);
        return this.settled(page);
      case 'scroll':
        await page.evaluate(SCROLL(action.direction === 'down' ? 1 : -1));
        return done();
      case 'new_tab': {
        const tab = await this.context!.newPage();
        this.current = tab;
        return done();
      }
      case 'tab_focus': {
        const pages = this.context!.pages();
        const tab = pages[action.index];
        if (!tab) return failed(`There is no tab ${action.index}: the open tabs are 0 to ${pages.length - 1}.`);
        this.current = tab;
        await tab.bringToFront();
        return done();
      }
      case 'close_tab': {
        await page.close();
        const pages = this.context!.pages();
        this.current = pages[pages.length - 1] ?? (await this.context!.newPage());
        await this.current.bringToFront();
        return done();
      }
      case 'goto': {
        const url = normalizeUrl(action.url);
        if (typeof url !== 'string') return failed(url.error);
        try {
          await page.goto(url, { waitUntil: 'load', timeout: this.navigationTimeoutMs });
        } catch (error) {
          if (this.lostReason) throw error;
          return failed(`Could not open ${url}: ${firstLine(error)}`);
        }
        return done();
      }
      case 'go_back':
      case 'go_forward': {
        const options = { waitUntil: 'load' as const, timeout: this.navigationTimeoutMs };
        const before = page.url();
        const response = action.kind === 'go_back' ? await page.goBack(options) : await page.goForward(options);
        // null: no history entry, or a step within the same document (then the URL changed).
        if (response === null && page.url() === before) {
          return failed(`There is no ${action.kind === 'go_back' ? 'previous' : 'next'} page in this tab's history.`);
        }
        return done();
      }
    }
  }

  private async settled(page: Page): Promise<ActResult> {
    if (page.isClosed()) return done();
    const finished = await settle(page, this.navigationTimeoutMs);
    return finished ? done() : done(`The page was still loading after ${this.navigationTimeoutMs} ms.`);
  }

  private async target(page: Page, id: string): Promise<TargetElement | string> {
    const element = this.elements.get(id);
    if (!element) return `Element [${id}] is not in the current observation; use an id from the page shown.`;
    if (element.backendNodeId === undefined) return `Element [${id}] (${element.role} '${element.name}') cannot be acted on.`;
    const target = await markElement(page, await this.cdpFor(page), element.backendNodeId);
    return target ?? `Element [${id}] is no longer on the page.`;
  }

  private adopt(page: Page): void {
    trackNavigations(page);
    this.current = page;
    page.on('crash', () => this.markLost('the page crashed'));
    page.on('close', () => {
      this.cdp.delete(page);
      if (this.current === page) this.current = this.context?.pages().at(-1);
    });
  }

  private page(): Page {
    if (!this.current || this.current.isClosed()) {
      this.current = this.context?.pages().at(-1);
      if (!this.current) throw new EnvError('ENV_INTERNAL', `web session ${this.instanceId} has no open tab`);
    }
    return this.current;
  }

  private async cdpFor(page: Page): Promise<CDPSession> {
    let session = this.cdp.get(page);
    if (!session) {
      session = await this.context!.newCDPSession(page);
      this.cdp.set(page, session);
    }
    return session;
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    this.check();
    try {
      return await work();
    } catch (error) {
      if (!this.lostReason && !this.closed && (await this.browserGone(error))) this.markLost('the browser crashed or was closed from outside');
      this.check();
      throw error;
    }
  }

  /**
   * Whether `error` came from the browser going away. The call that fails can reject before the
   * host hears of the disconnect, so an error that says something closed waits a moment for it.
   */
  private async browserGone(error: unknown): Promise<boolean> {
    const browser = this.context?.browser();
    if (!browser) return false;
    if (!browser.isConnected()) return true;
    if (!/closed|disconnected|crash/i.test(errorMessage(error))) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return !browser.isConnected();
  }

  private check(): void {
    if (this.lostReason) throw new EnvError('ENV_LOST', `web session ${this.instanceId} was lost: ${this.lostReason}; the episode is aborted`);
    if (this.closed) throw new EnvError('ENV_CLOSED', `web session ${this.instanceId} is closed`);
  }
}

/** An http(s) URL, `about:blank`, or a message; a URL without a scheme gets `http://`. */
export function normalizeUrl(text: string): string | { readonly error: string } {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(about|data|javascript|blob|file|chrome|view-source):/i.test(text);
  const candidate = hasScheme ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { error: `'${text}' is not a URL.` };
  }
  if (url.href === 'about:blank' || url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  return { error: `Only http and https URLs can be opened, not '${url.protocol}'.` };
}
