import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEvaluation } from '../../eval/run-eval.ts';
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
  /** Index in the episode list of a successful episode (the oracle solves both tasks, barring an overloaded machine). */
  let solved: number;
  const pageErrors: string[] = [];
  const records = () => readFileSync(path.join(recorded, 'episodes.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { episodeId: string; outcome: string; trajectory: unknown[] });

  beforeAll(async () => {
    const run = await runEvaluation({ env: createWebDefinition({ screenshots: true }), agent: 'oracle', samples: 1, tasks: 2, out: recorded, concurrency: 2, screenshots: true });
    expect(run.results.outcomes.success).toBeGreaterThanOrEqual(1);
    solved = records().findIndex((r) => r.outcome === 'success');
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

  it('writes one JPEG per turn, named by episode id and turn, but none for the final `stop`', () => {
    const name = (turn: number) => `${String(turn).padStart(3, '0')}.jpg`;
    for (const record of records().filter((r) => r.outcome !== 'aborted')) {
      const folder = path.join(recorded, 'screenshots', record.episodeId);
      expect(existsSync(folder)).toBe(true);
      const turns = record.trajectory.length;
      // A truncated episode's last step is not final for the env, so it has its page too.
      const pictured = record.outcome === 'truncated' ? turns + 1 : turns;
      expect(readdirSync(folder).sort()).toEqual(Array.from({ length: pictured }, (_, turn) => name(turn)));
    }
  });

  it('shows the recorded page of each turn, and the tree at the last turn, which has no picture', async () => {
    await openEpisode(recordedRun, solved);
    expect(await page.textContent('#traj-step-label')).toBe('episodes');
    expect(await page.getAttribute('#viewer', 'data-picture')).toBe('screenshot');
    const first = await loadedScreenshot();
    expect(first.src).toMatch(new RegExp(`/episodes/${solved}/screenshots/0$`));
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
    await openEpisode(plainRun, solved);
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
    const base = new URL(`/api/runs/${recordedRun}/steps/0/episodes/${solved}/screenshots/`, dashboard.url);
    const missing = await fetch(new URL('99', base));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'SCREENSHOT_UNKNOWN' } });
    expect((await fetch(new URL('..%2f..%2fconfig.json', base))).status).toBe(404);
    const shown = await fetch(new URL('0', base));
    expect(shown.headers.get('content-type')).toBe('image/jpeg');
    expect((await shown.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });
});
