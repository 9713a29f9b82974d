/**
 * Debian's Chromium for the dashboard's browser tests, driven by playwright-core. Outside CI a
 * machine without /usr/bin/chromium skips those tests with a message; in CI (CI=true) a missing
 * Chromium fails them, since .ci/run installs it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const inCI = process.env.CI === 'true' || process.env.CI === '1';

/** Whether the browser tests run here: always in CI (and fail there without Chromium). */
export const runBrowserTests = existsSync(CHROMIUM) || inCI;

if (!runBrowserTests) {
  process.stderr.write(`SKIPPED dashboard browser tests: ${CHROMIUM} is missing. Install it with \`sudo apt-get install -y chromium\` (CI installs it in .ci/run).\n`);
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`CI=true but ${CHROMIUM} is missing: .ci/run must install it (apt-get install -y --no-install-recommends chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}
