/**
 * Loads playwright-core, an optional dependency that only the web env needs, and launches
 * Debian's Chromium with it. A missing package fails with an error naming it and the fix instead
 * of a bare MODULE_NOT_FOUND; we never download a browser.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserType } from 'playwright-core';

const require = createRequire(import.meta.url);
let loaded: BrowserType | undefined;

/** Where the system Chromium is; `ACTORGYM_CHROMIUM` overrides it. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags that work in containers and CI: no sandbox (we often run as root without user
 * namespaces), /tmp instead of a small /dev/shm, no GPU; the rest keep idle background work
 * and memory down, since one browser serves many env instances.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-extensions',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-sync',
  '--no-first-run',
  '--mute-audio',
];

/** playwright-core's chromium launcher, or an Error saying it is missing and how to install it. */
export function loadChromium(): BrowserType {
  if (loaded) return loaded;
  try {
    loaded = (require('playwright-core') as typeof import('playwright-core')).chromium;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    throw new Error(
      `the web env needs the optional package playwright-core, which could not load: ${reason}. ` +
        'Install it with `npm install playwright-core` (it drives the system Chromium; no browser is downloaded).',
      { cause },
    );
  }
  return loaded;
}

/** The Chromium executable to launch, checked to exist. */
export function chromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const path = env.ACTORGYM_CHROMIUM?.trim() || DEFAULT_CHROMIUM;
  if (!existsSync(path)) {
    throw new Error(
      `the web env needs Chromium at ${path}, which is missing. Install Debian's package with ` +
        '`sudo apt-get install -y --no-install-recommends chromium`, or set ACTORGYM_CHROMIUM to another Chromium executable.',
    );
  }
  return path;
}

/**
 * Launches one headless Chromium. Playwright's own signal handlers stay off: its SIGTERM handler
 * closes the browser and keeps the process alive (our host then relaunched it, so a terminated
 * rollout ran on), and its SIGINT handler exits before a command's graceful Ctrl-C can write what
 * finished. Chromium runs in its own process group and exits when its DevTools pipe closes, so
 * it goes with us however we end.
 */
export async function launchChromium(): Promise<Browser> {
  return loadChromium().launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [...CHROMIUM_ARGS],
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}
