import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEvaluation } from '../../actors/eval/run-eval.ts';
import { screenshotEnv } from '../../cli/commands/eval-screenshots.ts';
import { startDashboard, type Dashboard } from '../../dashboard/index.ts';
import { getBrowserHost } from '../../envs/web/browser/browser-host.ts';
import { closeSharedSites, createWebDefinition } from '../../envs/web/index.ts';
import { launchChromium, runBrowserTests } from './chromium.ts';

// Issue 27: the trajectory viewer shows a web episode's page. `eval --screenshots` keeps one
// JPEG per turn next to episodes.jsonl; the dashboard opens the evaluation directory and shows
// the picture of the turn, and without pictures the accessibility tree as a monospace block.
// In-page callbacks reach the DOM through `globalThis as any`: the tsconfig has no DOM lib.
describe('eval --screenshots is for the local web env only (issue 27)', () => {
  it('refuses another env and a remote web env with a clear error', async () => {
    await expect(screenshotEnv('babyai', undefined)).rejects.toThrow(/needs --env web .*"babyai" has no page/);
    await expect(screenshotEnv('web', 'ws://127.0.0.1:8100')).rejects.toThrow(/drop --remote/);
  });
});

describe.skipIf(!runBrowserTests)('web trajectories in the dashboard, in Chromium (issue 27)', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'actorgym-web-trajectory-'));
  const recorded = path.join(scratch, 'web-oracle');
  const plain = path.join(scratch, 'web-oracle-no-pictures');
  let dashboard: Dashboard;
  let browser: Browser;
  let page: Page;
  let recordedRun: string;
  let plainRun: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const run = await runEvaluation({ env: createWebDefinition({ screenshots: true }), agent: 'oracle', samples: 1, tasks: 2, out: recorded, concurrency: 2, screenshots: true });
    expect(run.results.outcomes).toMatchObject({ success: 2, aborted: 0 });
    await getBrowserHost().close();
    await closeSharedSites();
    // The same episodes without their pictures: what an evaluation without --screenshots leaves.
    cpSync(recorded, plain, { recursive: true });
    rmSync(path.join(plain, 'screenshots'), { recursive: true });
    dashboard = await startDashboard({ port: 0 });
    recordedRun = (await dashboard.addRunDir(recorded)).id;
    plainRun = (await dashboard.addRunDir(plain)).id;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await getBrowserHost().close();
    await closeSharedSites();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function openEpisode(run: string, index: number): Promise<void> {
    await page.goto(`${dashboard.url}#trajectories`);
    await page.waitForSelector(`#traj-run option[value="${run}"]`, { state: 'attached' });
    await page.selectOption('#traj-run', run);
    await page.waitForSelector(`#episode-list tbody tr[data-index="${index}"]`);
    await page.click(`#episode-list tbody tr[data-index="${index}"]`);
    await page.waitForSelector('#viewer[data-turn="0"]');
  }

  /** Waits until the shown picture has loaded; its natural size (0 × 0 for a broken image). */
  async function loadedScreenshot(): Promise<{ width: number; height: number; src: string }> {
    await page.waitForFunction(() => {
      const img = (globalThis as any).document.querySelector('#screenshot');
      return img && !img.hidden && img.complete;
    });
    return page.$eval('#screenshot', (img: any) => ({ width: img.naturalWidth, height: img.naturalHeight, src: img.getAttribute('src') }));
  }

  it('writes one JPEG per turn but the last, named by episode id and turn', () => {
    const episodes = readdirSync(path.join(recorded, 'screenshots')).sort();
    expect(episodes).toEqual(['eval-0-s0a0', 'eval-0-s1a0']);
    for (const episode of episodes) {
      const files = readdirSync(path.join(recorded, 'screenshots', episode)).sort();
      expect(files.length).toBeGreaterThanOrEqual(2);
      expect(files).toEqual(files.map((_, turn) => `${String(turn).padStart(3, '0')}.jpg`));
    }
  });

  it('shows the recorded page of each turn, and the tree at the last turn, which has no picture', async () => {
    await openEpisode(recordedRun, 0);
    expect(await page.textContent('#traj-step-label')).toBe('episodes');
    expect(await page.getAttribute('#viewer', 'data-picture')).toBe('screenshot');
    const first = await loadedScreenshot();
    expect(first.src).toMatch(/\/episodes\/0\/screenshots\/0$/);
    expect(first.width).toBeGreaterThan(0);
    expect(first.height).toBeGreaterThan(0);
    expect(await page.isHidden('#replay-note')).toBe(true);

    await page.click('#next');
    await page.waitForSelector('#viewer[data-turn="1"][data-picture="screenshot"]');
    const second = await loadedScreenshot();
    expect(second.src).toMatch(/\/screenshots\/1$/);
    expect(second.width).toBeGreaterThan(0);

    // The final turn is `stop [answer]`: the env sends no page with it.
    await page.click('#last');
    await page.waitForSelector('#viewer[data-picture="none"]');
    expect(await page.isHidden('#screenshot')).toBe(true);
    expect(await page.textContent('#observation')).toMatch(/The episode has ended: the task is complete/);
    expect(pageErrors).toEqual([]);
  });

  it('shows the accessibility tree as a monospace block when no picture was recorded', async () => {
    await openEpisode(plainRun, 1);
    expect(await page.getAttribute('#viewer', 'data-picture')).toBe('none');
    expect(await page.isHidden('#screenshot')).toBe(true);
    expect(await page.textContent('#replay-note')).toMatch(/--screenshots/);
    const observation = await page.$eval('#observation', (pre: any) => ({
      text: pre.textContent as string,
      font: (globalThis as any).getComputedStyle(pre).fontFamily as string,
      whiteSpace: (globalThis as any).getComputedStyle(pre).whiteSpace as string,
    }));
    expect(observation.text).toMatch(/\[\d+\] (link|button|textbox|heading) '/);
    expect(observation.font).toMatch(/mono/i);
    expect(observation.whiteSpace).toBe('pre-wrap');
    expect(pageErrors).toEqual([]);
  });

  it('answers a picture that is not there with SCREENSHOT_UNKNOWN', async () => {
    const base = new URL(`/api/runs/${recordedRun}/steps/0/episodes/0/screenshots/`, dashboard.url);
    const missing = await fetch(new URL('99', base));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'SCREENSHOT_UNKNOWN' } });
    expect((await fetch(new URL('..%2f..%2fconfig.json', base))).status).toBe(404);
    const shown = await fetch(new URL('0', base));
    expect(shown.headers.get('content-type')).toBe('image/jpeg');
    expect((await shown.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });
});
