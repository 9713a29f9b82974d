/**
 * `bench distributed` (issue 37, "Measure"): BabyAI GRPO (`--preset babyai-start`) at one time
 * budget, side by side:
 *
 * - topology: `train` in one process, or `learner` + 2 `worker` processes on loopback;
 * - mode: synchronous, or `--async --max-staleness K` with K = 1 and 2;
 * - scenario: `plain` (our transformer decodes in process), or `latency` — every decision call
 *   of the policy first waits `--latency-ms` (bench/distributed-hooks.ts), as an agent behind a
 *   policy endpoint does, where overlapping rollouts with learning should pay;
 *
 * and, for each, learner steps per hour (steps / the run's training seconds) and the final test
 * success; for learner + workers also each worker's idle time per learner step (its span of
 * work minus the time it was collecting). Part (d), the weight broadcast, is
 * bench/distributed-weights.ts. Arms run one after another (never two at once, the machine is
 * shared); each seed runs every arm. No assertions: read the table.
 *
 *   npx tsx bench/distributed.ts [--seeds 3] [--minutes 5] [--latency-ms 1000] [--eval-episodes 90]
 *     [--scenarios plain,latency] [--arms one:sync,one:1,one:2,workers:sync,workers:1,workers:2] [--no-weights]
 *
 * Through `actorgym bench distributed`: DIST_BENCH_SEEDS, DIST_BENCH_MINUTES, DIST_BENCH_LATENCY_MS,
 * DIST_BENCH_EVAL, DIST_BENCH_SCENARIOS, DIST_BENCH_ARMS, DIST_BENCH_WEIGHTS=0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { table } from '../charts/text-table.ts';
import { median } from './stats.ts';

export interface DistributedBenchOptions {
  readonly seeds: number;
  readonly minutes: number;
  readonly latencyMs: number;
  readonly evalEpisodes: number;
  readonly scenarios: readonly Scenario[];
  readonly arms: readonly string[];
  readonly weights: boolean;
}

type Scenario = 'plain' | 'latency';

export const DISTRIBUTED_DEFAULTS: DistributedBenchOptions = {
  seeds: 3, minutes: 5, latencyMs: 1000, evalEpisodes: 90, scenarios: ['plain', 'latency'],
  arms: ['one:sync', 'one:1', 'one:2', 'workers:sync', 'workers:1', 'workers:2'], weights: true,
};

interface ArmResult {
  readonly steps: number;
  readonly trainSeconds: number;
  readonly testSuccess: number;
  readonly rolloutPerStep: number;
  readonly learnPerStep: number;
  /** Learner + workers only: mean over the workers of (span − busy) / learner steps, seconds. */
  readonly workerIdlePerStep?: number;
}

const HOOKS = new URL('./distributed-hooks.mjs', import.meta.url).href;
const BIN = fileURLToPath(new URL('../bin/actorgym.js', import.meta.url));

/** `actorgym ARGS` with bench/distributed-hooks.ts preloaded; `done` resolves with its stdout once it exits. */
function launch(args: readonly string[], env: NodeJS.ProcessEnv): { child: ChildProcess; stderr: () => string; done: Promise<{ code: number | null; stdout: string }> } {
  const child = spawn(process.execPath, ['--import', HOOKS, BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout })));
  return { child, stderr: () => stderr, done };
}

async function listening(learner: ReturnType<typeof launch>): Promise<string> {
  for (;;) {
    const match = /listening for workers on (ws:\/\/\S+)/.exec(learner.stderr());
    if (match) return match[1]!;
    if (learner.child.exitCode !== null) throw new Error(`the learner exited before listening:\n${learner.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function runArgs(arm: string, seed: number, o: DistributedBenchOptions, out: string): string[] {
  const mode = arm.split(':')[1]!;
  return [
    '--preset', 'babyai-start', '--steps', '100000', '--max-minutes', String(o.minutes), '--seed', String(seed),
    '--eval-episodes', String(o.evalEpisodes), '--checkpoint-every', '0', '--no-dashboard', '--json', '--backend', 'wasm', '--out', out,
    ...(mode === 'sync' ? [] : ['--async', '--max-staleness', mode]),
  ];
}

/** Workers' idle seconds per learner step, from the busy files bench/distributed-hooks.ts wrote. */
function workerIdle(files: readonly string[], steps: number): number | undefined {
  const idle = files.flatMap((file) => {
    try {
      const { busyMs, spanMs } = JSON.parse(readFileSync(file, 'utf8')) as { busyMs: number; spanMs: number };
      return [(spanMs - busyMs) / 1000 / Math.max(1, steps)];
    } catch {
      return [];
    }
  });
  return idle.length > 0 ? idle.reduce((a, b) => a + b, 0) / idle.length : undefined;
}

async function runArm(scenario: Scenario, arm: string, seed: number, o: DistributedBenchOptions): Promise<ArmResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-bench-dist-'));
  const out = path.join(dir, 'run');
  const env = { ...process.env, ...(scenario === 'latency' ? { ACTORGYM_BENCH_POLICY_LATENCY_MS: String(o.latencyMs) } : {}) };
  const workers: ReturnType<typeof launch>[] = [];
  const busy = [path.join(dir, 'w1.json'), path.join(dir, 'w2.json')];
  try {
    const args = runArgs(arm, seed, o, out);
    const main = launch(arm.startsWith('one:') ? ['train', ...args] : ['learner', '--port', '0', ...args], env);
    if (arm.startsWith('workers:')) {
      const url = await listening(main);
      busy.forEach((file, i) => workers.push(launch(['worker', '--learner', url, '--name', `w${i + 1}`, '--backend', 'wasm'], { ...env, ACTORGYM_BENCH_BUSY_FILE: file })));
    }
    const { code, stdout } = await main.done;
    if (code !== 0) throw new Error(`${scenario} ${arm} seed ${seed} exited with ${code}:\n${main.stderr().slice(-2000)}`);
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.done));
    const summary = JSON.parse(stdout) as { steps: number; fromStep: number; trainSeconds: number; testSuccessRate?: number };
    const metrics = readFileSync(path.join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { rolloutSeconds: number; learnSeconds: number });
    const mean = (key: 'rolloutSeconds' | 'learnSeconds') => metrics.reduce((s, m) => s + m[key], 0) / metrics.length;
    const steps = summary.steps - summary.fromStep;
    const idle = arm.startsWith('workers:') ? workerIdle(busy, steps) : undefined;
    return {
      steps, trainSeconds: summary.trainSeconds, testSuccess: summary.testSuccessRate ?? Number.NaN,
      rolloutPerStep: mean('rolloutSeconds'), learnPerStep: mean('learnSeconds'), ...(idle !== undefined ? { workerIdlePerStep: idle } : {}),
    };
  } finally {
    for (const w of workers) w.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const meanSd = (values: readonly number[]): string => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return values.length > 1 ? `${mean.toFixed(3)} ± ${sd.toFixed(3)}` : mean.toFixed(3);
};

function rowsOf(scenario: Scenario, results: ReadonlyMap<string, ArmResult[]>): string[][] {
  const perHour = (r: ArmResult) => (r.steps / r.trainSeconds) * 3600;
  return [...results].map(([arm, runs]) => {
    const rate = median(runs.map(perHour));
    const sync = results.get(`${arm.split(':')[0]}:sync`);
    const ratio = sync ? rate / median(sync.map(perHour)) : Number.NaN;
    const idle = runs.flatMap((r) => (r.workerIdlePerStep !== undefined ? [r.workerIdlePerStep] : []));
    return [
      scenario, arm.replace(':sync', ' sync').replace(/:(\d)$/, ' async K=$1'), String(runs.length), rate.toFixed(0),
      `${Math.min(...runs.map(perHour)).toFixed(0)}–${Math.max(...runs.map(perHour)).toFixed(0)}`, Number.isNaN(ratio) ? '' : `${ratio.toFixed(2)}×`,
      meanSd(runs.map((r) => r.testSuccess)), median(runs.map((r) => r.rolloutPerStep)).toFixed(2), median(runs.map((r) => r.learnPerStep)).toFixed(2),
      idle.length > 0 ? median(idle).toFixed(2) : '',
    ];
  });
}

export async function runDistributedBench(o: DistributedBenchOptions = DISTRIBUTED_DEFAULTS): Promise<void> {
  const rows: string[][] = [['scenario', 'arm', 'seeds', 'steps/h', 'range', 'vs sync', 'test success', 'rollout s/step', 'learn s/step', 'worker idle s/step']];
  for (const scenario of o.scenarios) {
    const results = new Map<string, ArmResult[]>(o.arms.map((arm) => [arm, []]));
    for (let seed = 1; seed <= o.seeds; seed++) {
      for (const arm of o.arms) {
        const started = Date.now();
        const result = await runArm(scenario, arm, seed, o);
        results.get(arm)!.push(result);
        console.log(`${scenario} ${arm} seed ${seed}: ${result.steps} steps in ${result.trainSeconds.toFixed(0)} s, test success ${result.testSuccess.toFixed(3)} (${((Date.now() - started) / 1000).toFixed(0)} s wall)`);
      }
    }
    rows.push(...rowsOf(scenario, results));
  }
  console.log(`\nBabyAI GRPO (--preset babyai-start), ${o.minutes} min of training per run, ${o.seeds} seed(s), ${o.evalEpisodes} test episodes; latency scenario: ${o.latencyMs} ms per decision call`);
  console.log(table(rows));
  if (o.weights) console.log(`\n${await (await import('./distributed-weights.ts')).runWeightsBench()}`);
}

/** Options from DIST_BENCH_* (for `actorgym bench distributed`) over the defaults. */
export function distributedOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DistributedBenchOptions {
  const d = DISTRIBUTED_DEFAULTS;
  const list = (text: string | undefined) => text?.split(',').map((s) => s.trim()).filter(Boolean);
  return {
    seeds: Number(env.DIST_BENCH_SEEDS ?? d.seeds), minutes: Number(env.DIST_BENCH_MINUTES ?? d.minutes), latencyMs: Number(env.DIST_BENCH_LATENCY_MS ?? d.latencyMs),
    evalEpisodes: Number(env.DIST_BENCH_EVAL ?? d.evalEpisodes), scenarios: (list(env.DIST_BENCH_SCENARIOS) as Scenario[] | undefined) ?? d.scenarios,
    arms: list(env.DIST_BENCH_ARMS) ?? d.arms, weights: env.DIST_BENCH_WEIGHTS !== '0',
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string' }, minutes: { type: 'string' }, 'latency-ms': { type: 'string' }, 'eval-episodes': { type: 'string' },
      scenarios: { type: 'string' }, arms: { type: 'string' }, 'no-weights': { type: 'boolean' },
    },
  });
  const fromEnv = distributedOptionsFromEnv({
    ...process.env,
    ...(values.seeds ? { DIST_BENCH_SEEDS: values.seeds } : {}), ...(values.minutes ? { DIST_BENCH_MINUTES: values.minutes } : {}),
    ...(values['latency-ms'] ? { DIST_BENCH_LATENCY_MS: values['latency-ms'] } : {}), ...(values['eval-episodes'] ? { DIST_BENCH_EVAL: values['eval-episodes'] } : {}),
    ...(values.scenarios ? { DIST_BENCH_SCENARIOS: values.scenarios } : {}), ...(values.arms ? { DIST_BENCH_ARMS: values.arms } : {}),
    ...(values['no-weights'] ? { DIST_BENCH_WEIGHTS: '0' } : {}),
  });
  await runDistributedBench(fromEnv);
}
