/**
 * The one Chromium process that every web env instance in this process shares. Launched on
 * first use; closed by `close()` or after `idleCloseMs` without sessions (an open browser keeps
 * Node running). When it crashes or is closed from outside, every live session is marked lost
 * (its next call throws `ENV_LOST`, so its episode ends aborted) and the next `newContext`
 * launches a fresh browser.
 */
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { launchChromium } from './playwright.ts';

/** What the host needs from a session: to be told that its browser is gone. */
export interface HostedSession {
  markLost(reason: string): void;
}

export interface BrowserHostOptions {
  /** Launches the browser (default: Debian's Chromium with CHROMIUM_ARGS). */
  readonly launch?: () => Promise<Browser>;
  /** Close the browser this long after the last session closes (default 5000 ms; 0 = at once). */
  readonly idleCloseMs?: number;
}

export class BrowserHost {
  private browser: Browser | undefined;
  private launching: Promise<Browser> | undefined;
  private readonly sessions = new Set<HostedSession>();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly closing = new WeakSet<Browser>();
  private launches = 0;
  private readonly launch: () => Promise<Browser>;
  private readonly idleCloseMs: number;

  constructor(options: BrowserHostOptions = {}) {
    this.launch = options.launch ?? launchChromium;
    this.idleCloseMs = options.idleCloseMs ?? 5000;
  }

  /** How many browsers this host has launched (1 + restarts after crashes or idle closes). */
  get launchCount(): number {
    return this.launches;
  }

  /** Live sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The running browser, launching one if there is none. */
  async getBrowser(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= this.launch().then(
      (browser) => {
        this.launches++;
        this.browser = browser;
        this.launching = undefined;
        browser.on('disconnected', () => this.onDisconnected(browser));
        return browser;
      },
      (error: unknown) => {
        this.launching = undefined;
        throw error;
      },
    );
    return this.launching;
  }

  /** A new browser context registered for `session`; `release` it when the session closes. */
  async newContext(session: HostedSession, options: BrowserContextOptions): Promise<BrowserContext> {
    clearTimeout(this.idleTimer);
    this.sessions.add(session);
    try {
      return await (await this.getBrowser()).newContext(options);
    } catch (error) {
      this.release(session);
      throw error;
    }
  }

  release(session: HostedSession): void {
    this.sessions.delete(session);
    if (this.sessions.size > 0 || !this.browser) return;
    clearTimeout(this.idleTimer);
    if (this.idleCloseMs <= 0) void this.close();
    else this.idleTimer = setTimeout(() => void this.close(), this.idleCloseMs);
  }

  /** Closes the browser; live sessions are marked lost. The host can be used again afterwards. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const browser = this.browser ?? (await this.launching?.catch(() => undefined));
    this.browser = undefined;
    for (const session of this.sessions) session.markLost('the browser was closed');
    this.sessions.clear();
    if (browser) {
      this.closing.add(browser);
      await browser.close().catch(() => undefined);
    }
  }

  private onDisconnected(browser: Browser): void {
    if (this.browser === browser) this.browser = undefined;
    if (this.closing.has(browser)) return;
    for (const session of this.sessions) session.markLost('the browser crashed or was closed from outside');
    this.sessions.clear();
  }
}

let shared: BrowserHost | undefined;

/** The process-wide host every web env instance uses. */
export function getBrowserHost(): BrowserHost {
  shared ??= new BrowserHost();
  return shared;
}
