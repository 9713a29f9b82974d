/**
 * The web env at scale: N envs (16, 32) in one process, all acting at once with the oracle on
 * test tasks. Memory per env is this process plus every Chromium process (RSS, and PSS, which
 * splits the pages the processes share), divided by N, sampled once a second while the N
 * episodes run (the peak is reported); reset and step latency p50/p95; steps/s over the run.
 * Anchors: the target of 150 MB per env and WebArena's ~1 GB (a browser per env).
 * Page loads may take 60 s and field actions 20 s here (the env's defaults are 15 s and 5 s):
 * N renderers on a few cores are slow, and the bench measures how slow rather than timing out.
 * An episode whose reset or step throws counts as failed, with its reason, and the run goes on.
 *
 *   npx actorgym bench web                                   (16 and 32 envs, 2 episodes each)
 *   npx tsx bench/web.ts [--envs 16,32] [--episodes 2] [--json]
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { table } from '../charts/text-table.ts';
import type { Env, Oracle } from '../envs/contract.ts';
import { getBrowserHost } from '../envs/web/browser/browser-host.ts';
import { treePssBytes, treeRssBytes } from '../envs/web/browser/processes.ts';
import { closeSharedSites, createWebDefinition, webTasks } from '../envs/web/index.ts';
import { errorMessage } from '../envs/error-message.ts';

const MB = 1024 * 1024;
const TARGET_MB = 150;
const WEBARENA_MB = 1024;
const webDefinition = createWebDefinition({ navigationTimeoutMs: 60_000, actionTimeoutMs: 20_000 });

export interface WebBenchRow {
  readonly envs: number;
  readonly episodes: number;
  readonly successes: number;
  /** Episodes whose reset or step threw; `failures` says why (first line, counted). */
  readonly failed: number;
  readonly failures: Readonly<Record<string, number>>;
  readonly steps: number;
  readonly rssPerEnvMb: number;
  readonly pssPerEnvMb: number;
  readonly baselineRssMb: number;
  readonly resetP50Ms: number;
  readonly resetP95Ms: number;
  readonly stepP50Ms: number;
  readonly stepP95Ms: number;
  readonly stepsPerSecond: number;
  readonly wallSeconds: number;
}

/** The p-th percentile (nearest rank) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** `16,32` → [16, 32]; anything else is an error naming the flag. */
export function parseEnvCounts(text: string): number[] {
  const counts = text.split(',').map((part) => Number(part.trim()));
  if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 1 || n > 256)) {
    throw new Error(`--envs must be a comma-separated list of whole numbers from 1 to 256, got '${text}'`);
  }
  return counts;
}

async function timed<T>(work: () => Promise<T>, into: number[]): Promise<T> {
  const start = performance.now();
  const result = await work();
  into.push(performance.now() - start);
  return result;
}

async function measure(n: number, episodesPerEnv: number, horizon: number): Promise<WebBenchRow> {
  const tasks = webTasks('test');
  const baselineRss = treeRssBytes();
  const envs: Env[] = Array.from({ length: n }, () => webDefinition.make());
  const oracles: Oracle[] = envs.map((env) => webDefinition.oracle!(env));
  const resets: number[] = [];
  const steps: number[] = [];
  let successes = 0;
  const failures: Record<string, number> = {};
  let peakRss = 0;
  let peakPss = 0;
  const sample = () => {
    peakRss = Math.max(peakRss, treeRssBytes());
    peakPss = Math.max(peakPss, treePssBytes());
  };
  const sampler = setInterval(sample, 1000);
  const start = performance.now();
  try {
    await Promise.all(
      envs.map(async (env, slot) => {
        for (let e = 0; e < episodesPerEnv; e++) {
          const taskId = tasks[(slot + e * n) % tasks.length]!;
          try {
            await timed(() => env.reset({ taskId }), resets);
            for (let turn = 0; turn < horizon; turn++) {
              const action = await oracles[slot]!.next();
              const result = await timed(() => env.step(action), steps);
              if (result.terminated) {
                if (result.reward === 1) successes += 1;
                break;
              }
            }
          } catch (error) {
            const reason = errorMessage(error, { withCode: false }).split('\n')[0]!.replace(/\d+/g, 'N');
            failures[reason] = (failures[reason] ?? 0) + 1;
          }
        }
      }),
    );
    sample();
  } finally {
    clearInterval(sampler);
    await Promise.all(envs.map((env) => env.close()));
  }
  const wallSeconds = (performance.now() - start) / 1000;
  return {
    envs: n,
    episodes: n * episodesPerEnv,
    successes,
    failed: Object.values(failures).reduce((a, b) => a + b, 0),
    failures,
    steps: steps.length,
    rssPerEnvMb: peakRss / n / MB,
    pssPerEnvMb: peakPss / n / MB,
    baselineRssMb: baselineRss / MB,
    resetP50Ms: percentile(resets, 50),
    resetP95Ms: percentile(resets, 95),
    stepP50Ms: percentile(steps, 50),
    stepP95Ms: percentile(steps, 95),
    stepsPerSecond: steps.length / wallSeconds,
    wallSeconds,
  };
}

export async function runWebBench(argv: readonly string[]): Promise<WebBenchRow[]> {
  const { values } = parseArgs({
    args: [...argv],
    options: { envs: { type: 'string', default: '16,32' }, episodes: { type: 'string', default: '2' }, json: { type: 'boolean', default: false } },
  });
  const counts = parseEnvCounts(values.envs);
  const episodes = Number(values.episodes);
  if (!Number.isInteger(episodes) || episodes < 1) throw new Error(`--episodes must be a whole number ≥ 1, got '${values.episodes}'`);
  const rows: WebBenchRow[] = [];
  try {
    for (const n of counts) {
      console.error(`bench web: ${n} envs × ${episodes} episodes…`);
      rows.push(await measure(n, episodes, webDefinition.spec.defaultHorizon));
      // A fresh browser and site server for the next size, so its memory is its own.
      await getBrowserHost().close();
      await closeSharedSites();
    }
  } finally {
    await getBrowserHost().close();
    await closeSharedSites();
  }
  if (values.json) {
    console.log(JSON.stringify(rows));
    return rows;
  }
  const f0 = (x: number) => x.toFixed(0);
  console.log('Web env: N envs acting at once with the oracle on test tasks (memory: peak while running, this process + Chromium, per env)');
  console.log(
    table([
      ['envs', 'episodes', 'successes', 'failed', 'RSS/env MB', 'PSS/env MB', 'PSS vs 150 MB target', 'PSS vs WebArena ~1 GB', 'reset p50/p95 ms', 'step p50/p95 ms', 'steps/s'],
      ...rows.map((r) => [
        String(r.envs),
        String(r.episodes),
        String(r.successes),
        String(r.failed),
        f0(r.rssPerEnvMb),
        f0(r.pssPerEnvMb),
        `${(r.pssPerEnvMb / TARGET_MB).toFixed(2)}×`,
        `${(r.pssPerEnvMb / WEBARENA_MB).toFixed(2)}×`,
        `${f0(r.resetP50Ms)} / ${f0(r.resetP95Ms)}`,
        `${f0(r.stepP50Ms)} / ${f0(r.stepP95Ms)}`,
        r.stepsPerSecond.toFixed(1),
      ]),
    ]),
  );
  console.log(`process RSS before any env: ${f0(rows[0]?.baselineRssMb ?? 0)} MB (included in the per-env figures)`);
  for (const r of rows) {
    for (const [reason, count] of Object.entries(r.failures)) console.log(`${r.envs} envs: ${count} failed: ${reason}`);
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runWebBench(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
