/**
 * `bench llm-rollout` (issue 23): LLM-agent rollouts on BabyAI against a latency-injecting
 * OpenAI-compatible server (bench/llm-latency-server.ts: lognormal delays, p99 ≈ 10 × p50),
 * two ways, with the same env, endpoint, concurrency limit, tasks, seeds and horizon:
 *
 * - actorgym: `createRolloutSystem` with an LLM agent from `createLlmPolicy`; each episode is its
 *   own actor and asks for its next decision as soon as its env has stepped.
 * - lock-step rounds (AgentGym-RL's shape, bench/lockstep-rollout.ts): every round, every live
 *   episode gets one call, the round waits for the slowest, then all envs step; finished episodes
 *   are replaced at round boundaries. AgentGym-RL's 1 s sleep per round is left out.
 *
 * The server draws each call's delay and reply from the call itself, so both arms play the same
 * episodes with the same latencies (the LLM call counts agree). Arms alternate, A B A B …, and
 * the table shows medians.
 *
 *   npx tsx bench/llm-rollout.ts [--p50 200] [--limit 16] [--episodes 128] [--concurrency 64]
 *                                [--horizon 8] [--runs 2] [--seed 1]
 *
 * Through `actorgym bench llm-rollout`, set the same through LLM_BENCH_P50_MS, LLM_BENCH_LIMIT,
 * LLM_BENCH_EPISODES, LLM_BENCH_CONCURRENCY, LLM_BENCH_HORIZON, LLM_BENCH_RUNS, LLM_BENCH_SEED.
 * - p50: median delay of a reply, ms (default 200).
 * - limit: requests in flight across all episodes, `--llm-concurrency` (default 16).
 * - episodes: episodes per run, BabyAI's 90 test tasks cycled (default 128).
 * - concurrency: episodes live at once, in both arms (default 64).
 * - horizon: decisions per episode at most (default 8).
 * - runs: runs of each arm (default 2).
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { table } from '../charts/text-table.ts';
import { getEnv } from '../envs/index.ts';
import { createLlmPolicy } from '../policy/llm/create-llm-policy.ts';
import { startLatencyServer, TAIL_SIGMA, type LatencyServer, type LatencyWindow } from './llm-latency-server.ts';
import { lockStepRollout } from './lockstep-rollout.ts';
import { median } from './stats.ts';

export interface LlmRolloutBenchOptions {
  readonly p50Ms: number;
  readonly limit: number;
  readonly episodes: number;
  readonly concurrency: number;
  readonly horizon: number;
  readonly runs: number;
  readonly seed: number;
}

export const LLM_ROLLOUT_DEFAULTS: LlmRolloutBenchOptions = { p50Ms: 200, limit: 16, episodes: 128, concurrency: 64, horizon: 8, runs: 2, seed: 1 };

type Arm = 'actorgym' | 'lock-step';

interface ArmRun {
  readonly seconds: number;
  readonly episodes: number;
  readonly successes: number;
  readonly calls: number;
  readonly aborted: number;
  /** Lock-step only: rounds played. */
  readonly rounds?: number;
  readonly server: LatencyWindow;
}

async function runArm(arm: Arm, server: LatencyServer, o: LlmRolloutBenchOptions): Promise<ArmRun> {
  const env = getEnv('babyai');
  // A fresh agent per run, so its usage counts this run's calls only; the same options in both arms.
  const agent = createLlmPolicy({ model: 'bench', env, baseURL: server.baseURL, apiKey: 'bench', concurrency: o.limit });
  server.window();
  try {
    if (arm === 'actorgym') {
      const summary = await createRolloutSystem({
        env,
        agent,
        split: 'test',
        episodes: o.episodes,
        concurrency: o.concurrency,
        schedule: `fixed:${o.horizon}`,
        seed: o.seed,
      }).run();
      const window = server.window();
      return {
        seconds: summary.wallSeconds,
        episodes: summary.episodes,
        successes: summary.outcomes.success,
        calls: agent.usage().calls,
        aborted: summary.outcomes.aborted,
        server: window,
      };
    }
    const result = await lockStepRollout(env, agent, { split: 'test', episodes: o.episodes, width: o.concurrency, horizon: o.horizon, seed: o.seed });
    const window = server.window();
    return {
      seconds: result.seconds,
      episodes: result.episodes,
      successes: result.successes,
      calls: agent.usage().calls,
      aborted: 0,
      rounds: result.rounds,
      server: window,
    };
  } finally {
    await agent.close();
  }
}

const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const fixed = (values: readonly number[], digits: number) => values.map((v) => v.toFixed(digits)).join(' / ');

export async function runLlmRolloutBench(options: Partial<LlmRolloutBenchOptions> = fromEnv()): Promise<void> {
  const o: LlmRolloutBenchOptions = { ...LLM_ROLLOUT_DEFAULTS, ...options };
  const server = await startLatencyServer({ p50Ms: o.p50Ms, seed: o.seed });
  const runs: Record<Arm, ArmRun[]> = { actorgym: [], 'lock-step': [] };
  try {
    for (let r = 0; r < o.runs; r++) {
      for (const arm of ['actorgym', 'lock-step'] as const) {
        const run = await runArm(arm, server, o);
        runs[arm].push(run);
        console.log(
          `  run ${r + 1} ${arm}: ${run.seconds.toFixed(1)} s, ${run.episodes} episodes, ${run.calls} calls, ` +
            `${(run.server.meanInFlight / o.limit).toFixed(2)} utilization`,
        );
      }
    }
  } finally {
    await server.close();
  }

  const a = runs.actorgym;
  const b = runs['lock-step'];
  const rate = (rs: readonly ArmRun[]) => rs.map((r) => r.episodes / r.seconds);
  const util = (rs: readonly ArmRun[]) => rs.map((r) => r.server.meanInFlight / o.limit);
  // What no scheme can beat: the limit's slots kept busy all the time.
  const bound = (rs: readonly ArmRun[]) => rs.map((r) => sum(r.server.drawnMs) / 1000 / o.limit);
  const ratio = (x: number, y: number) => `${(x / y).toFixed(2)}×`;
  const rows: string[][] = [
    ['', 'actorgym (per-episode actors)', 'lock-step rounds', 'actorgym / lock-step'],
    ['episodes/s, median', median(rate(a)).toFixed(2), median(rate(b)).toFixed(2), ratio(median(rate(a)), median(rate(b)))],
    ['  each run', fixed(rate(a), 2), fixed(rate(b), 2), ''],
    ['wall seconds, each run', fixed(a.map((r) => r.seconds), 1), fixed(b.map((r) => r.seconds), 1), ''],
    ['endpoint utilization (mean in flight / limit), median', median(util(a)).toFixed(2), median(util(b)).toFixed(2), ratio(median(util(a)), median(util(b)))],
    ['  each run', fixed(util(a), 2), fixed(util(b), 2), ''],
    ['most requests in flight', `${Math.max(...a.map((r) => r.server.maxInFlight))}`, `${Math.max(...b.map((r) => r.server.maxInFlight))}`, ''],
    ['LLM calls per run', a.map((r) => r.calls).join(' / '), b.map((r) => r.calls).join(' / '), ''],
    ['lock-step rounds per run', '', b.map((r) => r.rounds ?? 0).join(' / '), ''],
    ['successes per run', a.map((r) => r.successes).join(' / '), b.map((r) => r.successes).join(' / '), ''],
    ['limit-bound wall s (Σ delays / limit)', fixed(bound(a), 1), fixed(bound(b), 1), ''],
  ];
  const aborted = sum(a.map((r) => r.aborted));
  const drawn = [...a, ...b].flatMap((r) => r.server.drawnMs);
  const served = [...a, ...b].flatMap((r) => r.server.servedMs);

  console.log(
    `\nBabyAI test split cycled to ${o.episodes} episodes, ${o.concurrency} live at once, horizon ${o.horizon}; ` +
      `limit ${o.limit} requests in flight; lognormal latency p50 ${o.p50Ms} ms, σ ${TAIL_SIGMA.toFixed(2)}; ` +
      `${o.runs} runs per arm, interleaved\n`,
  );
  console.log(table(rows));
  console.log(
    `\nServer delays, all ${drawn.length} calls: drawn p50 ${quantile(drawn, 0.5).toFixed(0)} ms, p99 ${quantile(drawn, 0.99).toFixed(0)} ms ` +
      `(p99/p50 ${(quantile(drawn, 0.99) / quantile(drawn, 0.5)).toFixed(1)}); measured arrival→reply p50 ${quantile(served, 0.5).toFixed(0)} ms, ` +
      `p99 ${quantile(served, 0.99).toFixed(0)} ms.${aborted > 0 ? ` ${aborted} actorgym episodes aborted.` : ''}`,
  );
  console.log(
    'actorgym: createRolloutSystem, one actor per episode; each asks for its next call as soon as its env has stepped, ' +
      'and the chat client queues calls past the limit (FIFO).\n' +
      'lock-step: every round, one call for each live episode (all issued at once, the same client and limit), the round ' +
      'waits for the slowest, then all env steps; finished episodes are replaced at round boundaries. ' +
      "AgentGym-RL's 1 s sleep per round is not added.\n" +
      'Both arms play the same episodes: the server draws each call’s delay and action from the call itself.',
  );
}

function fromEnv(): Partial<LlmRolloutBenchOptions> {
  const read = (name: string) => (process.env[name] !== undefined && process.env[name] !== '' ? Number(process.env[name]) : undefined);
  return definedOnly({
    p50Ms: read('LLM_BENCH_P50_MS'),
    limit: read('LLM_BENCH_LIMIT'),
    episodes: read('LLM_BENCH_EPISODES'),
    concurrency: read('LLM_BENCH_CONCURRENCY'),
    horizon: read('LLM_BENCH_HORIZON'),
    runs: read('LLM_BENCH_RUNS'),
    seed: read('LLM_BENCH_SEED'),
  });
}

function definedOnly(values: Record<keyof LlmRolloutBenchOptions, number | undefined>): Partial<LlmRolloutBenchOptions> {
  const out: Partial<Record<keyof LlmRolloutBenchOptions, number>> = {};
  for (const [key, value] of Object.entries(values) as Array<[keyof LlmRolloutBenchOptions, number | undefined]>) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0 || (value === 0 && key !== 'seed')) throw new Error(`llm-rollout: ${key} must be a positive number, got ${value}`);
    out[key] = value;
  }
  return out;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      p50: { type: 'string' },
      limit: { type: 'string' },
      episodes: { type: 'string' },
      concurrency: { type: 'string' },
      horizon: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
    },
  });
  const num = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  await runLlmRolloutBench({
    ...fromEnv(),
    ...definedOnly({
      p50Ms: num(values.p50),
      limit: num(values.limit),
      episodes: num(values.episodes),
      concurrency: num(values.concurrency),
      horizon: num(values.horizon),
      runs: num(values.runs),
      seed: num(values.seed),
    }),
  });
}
