/**
 * `bench frozen-server` (issue 40, finding 4): what a frozen env server costs a rollout. Three
 * `actorgym serve babyai` processes, a random-agent rollout over the pool with the CLI's default
 * call deadline, probe and heartbeat; in one arm the first server is SIGSTOPped (sockets open,
 * nothing answers) after 10 episodes and stays frozen. The table gives the wall time of each arm,
 * the frozen arm's extra time in call deadlines, and when the pool marked the server suspect and
 * dropped it. Medians over `--repeats` runs of each arm, arms alternating. No assertions.
 *
 *   npx tsx bench/frozen-server.ts [--episodes 150] [--repeats 3]
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

async function runOnce(episodes: number, freeze: boolean): Promise<Run> {
  const fleet = await ServerFleet.start(3);
  const frozen = fleet.urls[0]!;
  const events: (PoolEvent & { at: number })[] = [];
  const env = await poolEnvDefinition(fleet.urls, 'babyai', { onEvent: (e) => events.push({ ...e, at: performance.now() }) });
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

export async function runFrozenServerBench(options: { episodes?: number; repeats?: number } = {}): Promise<void> {
  const episodes = options.episodes ?? 150;
  const repeats = options.repeats ?? 3;
  const runs: { plain: Run[]; frozen: Run[] } = { plain: [], frozen: [] };
  for (let i = 0; i < repeats; i++) {
    for (const freeze of [false, true]) {
      const run = await runOnce(episodes, freeze);
      (freeze ? runs.frozen : runs.plain).push(run);
      console.log(`${freeze ? 'frozen' : 'undisturbed'} #${i + 1}: ${run.seconds.toFixed(1)} s, ${run.aborted} aborted attempts${freeze ? `, suspect after ${fmt(run.suspectAfter)} s, lost after ${fmt(run.lostAfter)} s` : ''}`);
    }
  }
  const med = (rows: Run[], pick: (r: Run) => number | undefined) => {
    const values = rows.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  const base = med(runs.plain, (r) => r.seconds)!;
  const deadline = CLIENT_CALL_TIMEOUT_MS / 1000;
  const row = (name: string, rows: Run[]) => {
    const seconds = med(rows, (r) => r.seconds)!;
    return [name, fmt(seconds), fmt(seconds - base), fmt((seconds - base) / deadline, 2), fmt(med(rows, (r) => r.suspectAfter)), fmt(med(rows, (r) => r.lostAfter)), fmt(med(rows, (r) => r.aborted), 0), fmt(med(rows, (r) => r.placedAfterSuspect), 0), fmt(med(rows, (r) => r.successRate), 3)];
  };
  console.log(`\n${episodes} BabyAI random episodes, 3 servers, concurrency 12; call deadline ${deadline} s, probe ${CLIENT_PROBE_MS / 1000} s, heartbeat ${CLIENT_HEARTBEAT_MS / 1000} s; medians of ${repeats}`);
  console.log(table([
    ['arm', 'wall s', 'extra s', 'extra / deadline', 'suspect after s', 'lost after s', 'aborted attempts', 'placed after suspect', 'success'],
    row('undisturbed', runs.plain),
    row('one server SIGSTOPped', runs.frozen),
  ]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { episodes: { type: 'string' }, repeats: { type: 'string' } } });
  await runFrozenServerBench({ ...(values.episodes ? { episodes: Number(values.episodes) } : {}), ...(values.repeats ? { repeats: Number(values.repeats) } : {}) });
}
