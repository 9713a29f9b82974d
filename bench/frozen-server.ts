/**
 * `bench frozen-server` (issue 40, finding 4): what a frozen env server costs a rollout. Three
 * `actorgym serve babyai` processes, a random-agent rollout over the pool with the default probe
 * and heartbeat, at each call deadline of `--deadlines` (the CLI's `--env-timeout`; default 30 s
 * and 5 s); in one arm the first server is SIGSTOPped (sockets open, nothing answers) after 10
 * episodes and stays frozen. The table gives the wall time of each arm, the frozen arm's extra
 * time in call deadlines, and when the pool marked the server suspect (a missed deadline) and
 * dropped it (a missed probe or heartbeat). Medians over `--repeats` runs of each arm, arms
 * alternating. No assertions.
 *
 *   npx tsx bench/frozen-server.ts [--episodes 150] [--repeats 3] [--deadlines 30,5]
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { table } from '../charts/text-table.ts';
import { CLIENT_CALL_TIMEOUT_MS, CLIENT_HEARTBEAT_MS, CLIENT_PROBE_MS } from '../transport/wire/limits.ts';
import { poolEnvDefinition } from '../transport/remote/pool-definition.ts';
import type { PoolEvent } from '../transport/remote/ws-pool.ts';
import { ServerFleet } from './chaos-fleet.ts';
import { median } from './stats.ts';

interface Run {
  readonly seconds: number;
  readonly aborted: number;
  readonly successRate: number;
  /** Seconds from SIGSTOP to the pool's suspect and lost events (frozen arm only). */
  readonly suspectAfter?: number | undefined;
  readonly lostAfter?: number | undefined;
  /** Instances placed on the frozen server after it was marked suspect. */
  readonly placedAfterSuspect?: number | undefined;
}

async function runOnce(episodes: number, freeze: boolean, deadlineMs: number): Promise<Run> {
  const fleet = await ServerFleet.start(3);
  const frozen = fleet.urls[0]!;
  const events: (PoolEvent & { at: number })[] = [];
  const env = await poolEnvDefinition(fleet.urls, 'babyai', { callTimeoutMs: deadlineMs, onEvent: (e) => events.push({ ...e, at: performance.now() }) });
  try {
    const system = createRolloutSystem({ env, agent: 'random', split: 'train', episodes, concurrency: 12, seed: 5 });
    let finished = 0;
    let stoppedAt: number | undefined;
    let placedAtSuspect: number | undefined;
    system.events.subscribe((e) => {
      if (e.type !== 'episode.finished' || ++finished !== 10 || !freeze) return;
      fleet.signal(0, 'SIGSTOP');
      stoppedAt = performance.now();
    });
    const watch = setInterval(() => {
      if (placedAtSuspect === undefined && events.some((e) => e.url === frozen && e.type === 'server.suspect')) placedAtSuspect = env.pool.stats()[0]!.placed;
    }, 5);
    const started = performance.now();
    const summary = await system.run();
    const seconds = (performance.now() - started) / 1000;
    clearInterval(watch);
    const after = (type: PoolEvent['type']) => {
      const event = events.find((e) => e.url === frozen && e.type === type);
      return event !== undefined && stoppedAt !== undefined ? (event.at - stoppedAt) / 1000 : undefined;
    };
    const run: Run = { seconds, aborted: summary.abortedAttempts, successRate: summary.successRate };
    if (!freeze) return run;
    return { ...run, suspectAfter: after('server.suspect'), lostAfter: after('server.lost'), placedAfterSuspect: placedAtSuspect === undefined ? undefined : env.pool.stats()[0]!.placed - placedAtSuspect };
  } finally {
    await env.close();
    await fleet.stop();
  }
}

const fmt = (value: number | undefined, digits = 1) => (value === undefined ? '—' : value.toFixed(digits));

export async function runFrozenServerBench(options: { episodes?: number; repeats?: number; deadlines?: readonly number[] } = {}): Promise<void> {
  const episodes = options.episodes ?? 150;
  const repeats = options.repeats ?? 3;
  const deadlines = options.deadlines ?? [CLIENT_CALL_TIMEOUT_MS / 1000, 5];
  const runs = new Map<string, Run[]>();
  for (let i = 0; i < repeats; i++) {
    for (const deadline of deadlines) {
      for (const freeze of [false, true]) {
        const run = await runOnce(episodes, freeze, deadline * 1000);
        const key = `${deadline}/${freeze}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        console.log(`deadline ${deadline} s, ${freeze ? 'frozen' : 'undisturbed'} #${i + 1}: ${run.seconds.toFixed(1)} s, ${run.aborted} aborted attempts${freeze ? `, suspect after ${fmt(run.suspectAfter)} s, lost after ${fmt(run.lostAfter)} s` : ''}`);
      }
    }
  }
  const med = (rows: Run[], pick: (r: Run) => number | undefined) => {
    const values = rows.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  const rows = deadlines.flatMap((deadline) => {
    const plain = runs.get(`${deadline}/false`)!;
    const frozen = runs.get(`${deadline}/true`)!;
    const base = med(plain, (r) => r.seconds)!;
    const row = (name: string, rs: Run[]) => {
      const seconds = med(rs, (r) => r.seconds)!;
      return [`${deadline} s`, name, fmt(seconds), fmt(seconds - base), fmt((seconds - base) / deadline, 2), fmt(med(rs, (r) => r.suspectAfter)), fmt(med(rs, (r) => r.lostAfter)), fmt(med(rs, (r) => r.aborted), 0), fmt(med(rs, (r) => r.placedAfterSuspect), 0), fmt(med(rs, (r) => r.successRate), 3)];
    };
    return [row('undisturbed', plain), row('one server SIGSTOPped', frozen)];
  });
  console.log(`\n${episodes} BabyAI random episodes, 3 servers, concurrency 12; probe ${CLIENT_PROBE_MS / 1000} s (at most the deadline), heartbeat ${CLIENT_HEARTBEAT_MS / 1000} s; medians of ${repeats}`);
  console.log(table([
    ['call deadline', 'arm', 'wall s', 'extra s', 'extra / deadline', 'suspect after s', 'lost after s', 'aborted attempts', 'placed after suspect', 'success'],
    ...rows,
  ]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { episodes: { type: 'string' }, repeats: { type: 'string' }, deadlines: { type: 'string' } } });
  await runFrozenServerBench({
    ...(values.episodes ? { episodes: Number(values.episodes) } : {}),
    ...(values.repeats ? { repeats: Number(values.repeats) } : {}),
    ...(values.deadlines ? { deadlines: values.deadlines.split(',').map(Number) } : {}),
  });
}
