/**
 * Takes the dashboard pictures in docs/dashboard/ with the browser-test setup (Debian's Chromium
 * through playwright-core, the demo runs of dashboard/demo/):
 *
 *   npx tsx dashboard/screenshots.ts [--run [LABEL=]DIR …] [--out docs/dashboard]
 *   npx tsx dashboard/screenshots.ts --web [--run DIR] [--out docs/dashboard]
 *
 * charts.png overlays the given run directories (without --run, two tiny GRPO runs with
 * different horizon schedules are trained first); board.png shows 64 concurrent random-agent
 * episodes on a slowed BabyAI with one stalled episode raising the alarm; trajectory.png replays
 * a successful episode of the first run that has trajectories. With --web, only
 * web-trajectory.png: one turn of a web episode with its recorded page, from the evaluation
 * directory given with --run (`actorgym eval --env web --screenshots --out DIR`), else from the
 * oracle evaluated here on two test tasks.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { boardRollout, tinyTraining } from './demo/demo-runs.ts';
import { parseRunArg, startDashboard, type Dashboard } from './index.ts';
import type { EpisodeSummary } from './server/run-dir.ts';
import type { RunInfo } from './server/wire.ts';

const { values } = parseArgs({ options: { run: { type: 'string', multiple: true }, out: { type: 'string', default: 'docs/dashboard' }, web: { type: 'boolean', default: false } } });
const out = path.resolve(values.out);
mkdirSync(out, { recursive: true });
const scratch = mkdtempSync(path.join(tmpdir(), 'actorgym-screenshots-'));

const dashboard = await startDashboard({ port: 0, alarmMs: 1_500 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
try {
  if (values.web) await webTrajectory(browser, dashboard);
  else await dashboardPictures();
} finally {
  await browser.close();
  await dashboard.close();
  rmSync(scratch, { recursive: true, force: true });
}

/** charts.png, trajectory.png and board.png. */
async function dashboardPictures(): Promise<void> {
  const runs = values.run ?? [];
  if (runs.length === 0) {
    for (const [name, schedule] of [['fixed-3', 'fixed:3'], ['scaling-1-2-4', 'scaling:[1,2,4]@4']] as const) {
      const dir = path.join(scratch, name);
      await tinyTraining(dir, 12, { schedule }).run();
      runs.push(dir);
    }
  }
  for (const arg of runs) {
    const { dir, label } = parseRunArg(arg);
    await dashboard.addRunDir(dir, label !== undefined ? { label } : {});
  }
  const page = await browser.newPage({ viewport: { width: 1400, height: 980 }, deviceScaleFactor: 1 });

  await page.goto(`${dashboard.url}#charts`);
  await page.waitForSelector('figure.chart[data-metric="successRate"] canvas');
  await page.waitForTimeout(500);
  await shoot(page, 'charts.png');

  await trajectory(page, dashboard);
  await shoot(page, 'trajectory.png');

  const { system } = boardRollout({ episodes: 640, concurrency: 64, stepMs: 120, stallMs: 6_000 });
  const live = dashboard.addLive(system.events, { label: 'random agent, 64 concurrent' });
  const finished = system.run();
  await page.goto(`${dashboard.url}#board`);
  await page.waitForSelector(`#board-run option[value="${live.id}"]`, { state: 'attached' });
  await page.selectOption('#board-run', live.id);
  await page.waitForSelector('#board tbody tr.alarm', { timeout: 60_000 });
  await page.waitForTimeout(1_200);
  await shoot(page, 'board.png');
  system.stop('screenshots taken');
  await finished;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(out, name) });
  process.stderr.write(`wrote ${path.join(out, name)}\n`);
}

/** An evaluation of the oracle on two web test tasks with their pages, at the turn after its first action. */
async function webTrajectory(browser: Browser, dashboard: Dashboard): Promise<void> {
  const { runEvaluation } = await import('../eval/run-eval.ts');
  const { createWebDefinition, closeSharedSites } = await import('../envs/web/index.ts');
  const { getBrowserHost } = await import('../envs/web/browser/browser-host.ts');
  const given = values.run?.[0];
  const dir = given ?? path.join(scratch, 'web-oracle-test');
  if (!given) await runEvaluation({ env: createWebDefinition({ screenshots: true }), agent: 'oracle', samples: 1, tasks: 2, out: dir, concurrency: 2, screenshots: true });
  await getBrowserHost().close();
  await closeSharedSites();
  await dashboard.addRunDir(dir, given ? {} : { label: 'web · oracle · eval --screenshots' });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  await trajectory(page, dashboard);
  await page.waitForFunction(() => (globalThis as any).document.querySelector('#screenshot')?.complete === true);
  await shoot(page, 'web-trajectory.png');
}

/** Opens a successful episode of a few turns (else the longest one) of the latest step, at its middle turn. */
async function trajectory(page: Page, dashboard: Dashboard): Promise<void> {
  const api = async <T>(p: string): Promise<T> => (await fetch(new URL(p, dashboard.url))).json() as Promise<T>;
  const run = (await api<RunInfo[]>('/api/runs')).find((r) => r.hasTrajectories);
  if (!run) throw new Error('no run with trajectories to show');
  const step = (await api<number[]>(`/api/runs/${run.id}/steps`)).at(-1);
  const episodes = await api<EpisodeSummary[]>(`/api/runs/${run.id}/steps/${step}`);
  const pick =
    episodes.filter((e) => e.outcome === 'success' && e.turns >= 3).sort((a, b) => a.turns - b.turns)[0] ??
    episodes.slice().sort((a, b) => b.turns - a.turns)[0];
  if (!pick) throw new Error(`step ${step} has no episodes`);
  await page.goto(`${dashboard.url}#trajectories`);
  await page.selectOption('#traj-run', run.id);
  await page.waitForSelector(`#traj-step option[value="${step}"]`, { state: 'attached' });
  await page.waitForSelector(`#episode-list tbody tr[data-index="${pick.index}"]`);
  await page.click(`#episode-list tbody tr[data-index="${pick.index}"]`);
  await page.waitForSelector('#viewer[data-turn="0"]');
  const turns = run.env === 'web' ? 1 : Math.ceil(pick.turns / 2);
  for (let turn = 0; turn < turns; turn++) await page.click('#next');
  await page.waitForTimeout(300);
}
