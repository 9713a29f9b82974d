/**
 * Dashboard overhead benchmark (issue 6: "keeps up with a run of 64 concurrent episodes without
 * slowing the training measurably"). The same runs with no dashboard, with the dashboard and a
 * WebSocket client reading every frame (the server's cost alone), and with the dashboard and a
 * headless Chromium page on the episode board (what a user on the same machine adds, rendering
 * included). Conditions are interleaved (A B C A B C …) so drift hits them alike.
 *
 * 1. Training: GRPO on BabyAI, 16 tasks × G=4 = 64 concurrent episodes per learner step (the
 *    npm-start model size, horizon 6): seconds per learner step, rollout env steps/s, learner tokens/s.
 * 2. Rollout only, the worst case for the event rate: the random agent, 64 concurrent episodes,
 *    env steps/s (two events per step, tens of thousands of events a second).
 *
 *   npx tsx bench/dashboard-overhead.ts [--repeats 3] [--steps 4]
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Observable } from 'rxjs';
import { WebSocket } from 'ws';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { createTrainingSystem } from '../actors/training-system.ts';
import { table } from '../charts/text-table.ts';
import { startDashboard } from '../dashboard/index.ts';
import { getEnv } from '../envs/index.ts';
import { median } from './stats.ts';

/** `median (min–max)`: the spread says how much of a difference is noise on a shared machine. */
const spread = (values: readonly number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

type Condition = 'none' | 'ws client' | 'chromium page';
const CHROMIUM = '/usr/bin/chromium';

/** Starts the dashboard on `events` and attaches the condition's client; returns how to stop both. */
async function attach(condition: Condition, events: Observable<{ type: string }>): Promise<() => Promise<void>> {
  if (condition === 'none') return async () => {};
  const dashboard = await startDashboard({ port: 0 });
  dashboard.addLive(events, { label: 'bench' });
  if (condition === 'ws client') {
    const ws = new WebSocket(`${dashboard.url.replace('http', 'ws')}live`);
    ws.on('message', (data) => JSON.parse(String(data)));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return async () => {
      ws.close();
      await dashboard.close();
    };
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const page = await browser.newPage();
  await page.goto(`${dashboard.url}#board`);
  await page.waitForSelector('#connection[data-state="live"]');
  return async () => {
    await browser.close();
    await dashboard.close();
  };
}

interface TrainingSample {
  readonly secondsPerStep: number;
  readonly envStepsPerSec: number;
  readonly tokensPerSec: number;
}

async function trainOnce(condition: Condition, steps: number): Promise<TrainingSample> {
  const training = createTrainingSystem({
    env: 'babyai', backend: 'wasm', algo: 'grpo', steps, schedule: 'fixed:6', seed: 0,
    tasksPerStep: 16, groupSize: 4, concurrency: 64, model: { dModel: 64, nHeads: 2, dFF: 256 },
    epochs: 1, minibatch: 32, checkpointEvery: 0, evalEpisodes: 0,
  });
  let envSteps = 0;
  const metrics: Record<string, number>[] = [];
  training.events.subscribe((e) => {
    if (e.type === 'env.stepped') envSteps++;
    else if (e.type === 'learner.stepped') metrics.push(e.metrics);
  });
  const detach = await attach(condition, training.events);
  try {
    const summary = await training.run();
    const rolloutSeconds = metrics.reduce((sum, m) => sum + (m.rolloutSeconds ?? 0), 0);
    return {
      secondsPerStep: summary.trainSeconds / summary.steps,
      envStepsPerSec: envSteps / rolloutSeconds,
      tokensPerSec: median(metrics.map((m) => m.tokensPerSec ?? 0)),
    };
  } finally {
    await detach();
  }
}

async function rolloutOnce(condition: Condition, episodes: number): Promise<number> {
  const system = createRolloutSystem({ env: getEnv('babyai'), agent: 'random', split: 'train', episodes, concurrency: 64, seed: 1 });
  const detach = await attach(condition, system.events);
  try {
    return (await system.run()).stepsPerSecond;
  } finally {
    await detach();
  }
}

export async function runDashboardOverheadBench(options: { repeats?: number; steps?: number; episodes?: number } = {}): Promise<void> {
  const repeats = options.repeats ?? 3;
  const steps = options.steps ?? 4;
  const episodes = options.episodes ?? 1024;
  const conditions: Condition[] = existsSync(CHROMIUM) ? ['none', 'ws client', 'chromium page'] : ['none', 'ws client'];
  const training = new Map<Condition, TrainingSample[]>(conditions.map((c) => [c, []]));
  const rollout = new Map<Condition, number[]>(conditions.map((c) => [c, []]));
  // Warm-up (JIT, wasm compilation), not measured.
  await trainOnce('none', 1);
  for (const c of conditions) await rolloutOnce(c, 256);
  for (let r = 0; r < repeats; r++) {
    for (const c of conditions) {
      training.get(c)!.push(await trainOnce(c, steps));
      rollout.get(c)!.push(await rolloutOnce(c, episodes));
      process.stderr.write(`repeat ${r + 1}/${repeats}: ${c} done\n`);
    }
  }
  const base = median(training.get('none')!.map((s) => s.secondsPerStep));
  const baseRollout = median(rollout.get('none')!);
  const pct = (value: number, reference: number) => `${value >= reference ? '+' : ''}${((100 * (value - reference)) / reference).toFixed(1)}%`;
  console.log(
    `Training: GRPO on BabyAI, 64 concurrent episodes per learner step (16 tasks × G=4, horizon 6, d64 model, wasm), ` +
      `${steps} learner steps a run, median of ${repeats} runs per condition, interleaved\n` +
      table([
        ['dashboard', 's / learner step (min–max)', 'vs none', 'rollout env steps/s', 'learner tokens/s'],
        ...conditions.map((c) => {
          const samples = training.get(c)!;
          const sps = samples.map((s) => s.secondsPerStep);
          return [c, spread(sps, 2), c === 'none' ? '' : pct(median(sps), base), spread(samples.map((s) => s.envStepsPerSec), 0), spread(samples.map((s) => s.tokensPerSec), 0)];
        }),
      ]) +
      `\n\nRollout only (worst case for the event rate): random agent, 64 concurrent episodes, ${episodes} episodes a run, median of ${repeats}\n` +
      table([
        ['dashboard', 'env steps/s (min–max)', 'vs none'],
        ...conditions.map((c) => {
          const values = rollout.get(c)!;
          return [c, spread(values, 0), c === 'none' ? '' : pct(median(values), baseRollout)];
        }),
      ]),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { repeats: { type: 'string' }, steps: { type: 'string' }, episodes: { type: 'string' } } });
  await runDashboardOverheadBench({
    ...(values.repeats ? { repeats: Number(values.repeats) } : {}),
    ...(values.steps ? { steps: Number(values.steps) } : {}),
    ...(values.episodes ? { episodes: Number(values.episodes) } : {}),
  });
}
