import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardRollout, tinyTraining } from '../../dashboard/demo/demo-runs.ts';
import { startDashboard, type Dashboard } from '../../dashboard/index.ts';
import { launchChromium, runBrowserTests } from './chromium.ts';

// Issue 6: the dashboard in a real browser (Debian's Chromium), fed by tiny real runs: the page
// loads, charts have data, the episode board updates while a run goes (with a stall alarm), and
// the trajectory viewer replays a BabyAI episode with its grid. In-page callbacks reach the DOM
// through `globalThis as any`: the project's tsconfig has no DOM lib.
describe.skipIf(!runBrowserTests)('dashboard in Chromium (issue 6)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-dashboard-'));
  const runDir = path.join(dir, 'tiny');
  let dashboard: Dashboard;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dashboard = await startDashboard({ port: 0, alarmMs: 1_000 });
    const training = tinyTraining(runDir, 4);
    dashboard.addLive(training.events, { label: 'tiny grpo' });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${dashboard.url}#charts`);
    await training.run();
  });

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads offline and draws the training curves', async () => {
    await page.waitForSelector('#connection[data-state="live"]');
    for (const metric of ['successRate', 'meanReward', 'horizon', 'meanTurns', 'entropy', 'tokensPerSec']) {
      await page.waitForSelector(`figure.chart[data-metric="${metric}"][data-points="4"] canvas`);
    }
    const legend = await page.textContent('#runs');
    expect(legend).toMatch(/tiny grpo/);
    expect(legend).toMatch(/training done after step 4/);
    expect(pageErrors).toEqual([]);
  });

  it('updates the episode board while a run goes, with a stall alarm and outcome counts', async () => {
    const { system, stallTaskId } = boardRollout({ episodes: 192, concurrency: 64, stepMs: 60, stallMs: 2_500 });
    const run = dashboard.addLive(system.events, { label: 'random rollout' });
    const finished = system.run();
    await page.goto(`${dashboard.url}#board`);
    await page.waitForSelector(`#board-run option[value="${run.id}"]`, { state: 'attached' });
    await page.selectOption('#board-run', run.id);
    // All 64 running (the board draws only the rows in view, so count them from its summary).
    await page.waitForSelector('#board-summary[data-running="64"]');

    // The board moves: turns advance and episodes come and go between two looks.
    const look = () => page.$$eval('#board tbody tr[data-episode]', (rows) => rows.map((tr) => `${tr.getAttribute('data-episode')}@${tr.children[3]?.textContent}`).join(','));
    const first = await look();
    await page.waitForFunction((before) => {
      const now = [...(globalThis as any).document.querySelectorAll('#board tbody tr[data-episode]')].map((tr: any) => `${tr.getAttribute('data-episode')}@${tr.children[3]?.textContent}`).join(',');
      return now !== before;
    }, first);
    const states = await page.$$eval('#board tbody tr[data-episode]', (rows) => rows.map((tr) => tr.getAttribute('data-state')));
    // Only the rows in view exist; scrolling draws the others.
    expect(states.length).toBeLessThan(64);
    await page.$eval('.board-wrap', (wrap: any) => (wrap.scrollTop = wrap.scrollHeight));
    await page.waitForFunction(() => Number.parseFloat((globalThis as any).document.querySelector('#board tbody tr.spacer').style.height) > 0);
    expect(states.every((s) => s === 'resetting' || s === 'acting' || s === 'stepping')).toBe(true);

    // The stalled task's episode stays in `stepping` past the 1 s threshold: its row raises the alarm and moves to the top.
    await page.$eval('.board-wrap', (wrap: any) => (wrap.scrollTop = 0));
    const alarmed = await page.waitForSelector('#board tbody tr[data-episode].alarm');
    expect(await page.$eval('#board tbody tr[data-episode]', (tr: any) => tr.classList.contains('alarm'))).toBe(true);
    expect(await alarmed.evaluate((tr) => tr.children[1]?.textContent)).toBe(stallTaskId);
    expect(await alarmed.getAttribute('data-state')).toBe('stepping');
    expect(await page.textContent('#alarm-count')).toMatch(/stalled/);

    const summary = await finished;
    await page.waitForSelector('#board-summary[data-running="0"]');
    expect(await page.$$('#board tbody tr[data-episode]')).toHaveLength(0);
    const counts = await page.$$eval('#outcomes .chip b', (bs) => bs.map((b) => Number(b.textContent)));
    const { success, failure, truncated, aborted } = summary.outcomes;
    expect(counts).toEqual([success, failure, truncated, aborted]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(summary.attempts);
    expect(pageErrors).toEqual([]);
  });

  it('replays a logged BabyAI episode turn by turn with the grid', async () => {
    await page.goto(`${dashboard.url}#trajectories`);
    await page.selectOption('#traj-run', { label: 'tiny grpo' });
    await page.waitForSelector('#traj-step option[value="4"]', { state: 'attached' });
    await page.selectOption('#traj-step', '2');
    await page.waitForSelector('#episode-list tbody tr');
    const logged = readFileSync(path.join(runDir, 'trajectories', 'step-000002.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const index = logged.findIndex((e) => e.steps.length >= 2);
    expect(index).toBeGreaterThanOrEqual(0);
    const episode = logged[index];
    await page.click(`#episode-list tbody tr[data-index="${index}"]`);
    await page.waitForSelector('#viewer[data-turn="0"][data-picture="grid"]');
    expect(await page.textContent('#viewer-title')).toContain(episode.taskId);
    expect(await page.textContent('#turn-action')).toBe('(reset)');
    expect(await page.textContent('#observation')).toBe(episode.firstObservation);
    const before = await gridDigest(page);
    expect(before.lit).toBeGreaterThan(0);

    await page.click('#next');
    await page.waitForSelector('#viewer[data-turn="1"]');
    expect(await page.textContent('#turn-label')).toBe(`turn 1 / ${episode.steps.length}`);
    expect(await page.textContent('#turn-action')).toContain(episode.steps[0].action);
    expect(await page.textContent('#observation')).toBe(episode.steps[0].observation);
    expect(await page.getAttribute('#viewer', 'data-picture')).toBe('grid');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#viewer[data-turn="2"]');
    expect(await page.textContent('#turn-action')).toContain(episode.steps[1].action);
    expect(await page.$$eval('#turn-list li', (items) => items.length)).toBe(episode.steps.length);
    expect(await page.isHidden('#replay-note')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

/** How many canvas pixels are drawn (not the black floor), and a checksum of them. */
function gridDigest(page: Page): Promise<{ lit: number; sum: number }> {
  return page.$eval('#grid', (canvas: any) => {
    const data: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let lit = 0;
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) {
      const v = (data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0);
      if (v > 0) lit++;
      sum = (sum + v * (i + 1)) % 1_000_000_007;
    }
    return { lit, sum };
  });
}
