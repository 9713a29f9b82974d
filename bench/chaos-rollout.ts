/**
 * A rollout on a pool of env servers (bench/chaos-fleet.ts) while servers are SIGKILLed and
 * restarted on a schedule: every `killEvery` scored episodes the busiest server the pool is
 * connected to is killed and started again on its port, with at most `maxDown` servers not connected at once
 * (default all but one).
 * The agent is held while a kill is due but cannot happen yet (too many servers down), so the
 * schedule follows the run whatever the machine's speed; a random agent's decisions depend on
 * (episode seed, turn) only, so holding it changes no outcome.
 */
import type { Split } from '../envs/contract.ts';
import { poolEnvDefinition } from '../transport/remote/pool-definition.ts';
import type { ServerStats } from '../transport/remote/server-link.ts';
import type { ActRequest, Decision, Policy, TokenTrajectory } from '../policy/policy.ts';
import { RandomPolicy } from '../policy/random-policy.ts';
import type { RolloutSummary } from '../streams/events.ts';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import type { ServerFleet } from './chaos-fleet.ts';

export interface ChaosRolloutOptions {
  readonly fleet: ServerFleet;
  readonly episodes: number;
  readonly concurrency: number;
  readonly seed: number;
  /** Scored episodes between two kills. */
  readonly killEvery: number;
  readonly maxKills: number;
  /** Servers down at once, at most. Default all but one. */
  readonly maxDown?: number;
  readonly split?: Split;
  readonly env?: string;
}

export interface ChaosRolloutResult {
  readonly summary: RolloutSummary;
  readonly kills: number;
  /** `episode.started` and `episode.finished` events seen: equal when every attempt ended once. */
  readonly started: number;
  readonly finished: number;
  /** Slots with more than one scored episode (must be 0), and slots with none. */
  readonly duplicated: number;
  readonly unscored: number;
  /** Instances the pool placed on servers after they had been restarted. */
  readonly placedAfterRestart: number;
  readonly servers: ServerStats[];
}

/** Holds every decision while `gate` is shut; otherwise the random agent as is. */
class GatedPolicy implements Policy {
  readonly name: string;
  readonly version: number;
  constructor(
    private readonly inner: Policy,
    private readonly gate: () => Promise<void>,
  ) {
    this.name = inner.name;
    this.version = inner.version;
  }

  async act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    await this.gate();
    return this.inner.act(batch);
  }

  release(episodeId: string): TokenTrajectory | undefined {
    return this.inner.release(episodeId);
  }
}

export async function chaosRollout(options: ChaosRolloutOptions): Promise<ChaosRolloutResult> {
  const { fleet, killEvery, maxKills } = options;
  const maxDown = options.maxDown ?? fleet.size - 1;
  let ready = false;
  // A server the pool reconnects to may be the next victim.
  const env = await poolEnvDefinition(fleet.urls, options.env ?? 'babyai', { onEvent: (event) => ready && event.type === 'server.connected' && tick() });
  let scored = 0;
  let kills = 0;
  let nextKillAt = killEvery;
  let victim = 0;
  const restarts: Promise<void>[] = [];
  const held: (() => void)[] = [];
  // Per server: its `placed` count when it was last restarted, to count placements after it.
  const placedAtRestart = new Map<number, number>();
  let placedAfterRestart = 0;
  const placed = (index: number) => env.stats()[index]?.placed ?? 0;

  const due = () => kills < maxKills && scored >= nextKillAt;
  // Servers the pool is connected to and the fleet has not killed since.
  const live = () => fleet.up().filter((index) => env.stats()[index]?.state === 'live');
  function tick(): void {
    while (due() && fleet.size - live().length < maxDown) {
      // The busiest live server (ties in turn): the kill hits running episodes, and a server
      // just restarted, still filling up, is left to take its share.
      const candidates = live();
      const stats = env.stats();
      const most = Math.max(...candidates.map((i) => stats[i]?.load ?? 0));
      const busiest = candidates.filter((i) => (stats[i]?.load ?? 0) === most);
      const index = busiest[victim++ % busiest.length] as number;
      kills += 1;
      nextKillAt += killEvery;
      const before = placedAtRestart.get(index);
      if (before !== undefined) {
        placedAfterRestart += placed(index) - before;
        placedAtRestart.delete(index);
      }
      restarts.push(
        fleet
          .kill(index)
          .then(() => fleet.restart(index))
          .then(() => {
            placedAtRestart.set(index, placed(index));
            tick();
          }),
      );
    }
    if (!due()) for (const open of held.splice(0)) open();
  }
  ready = true;
  const gate = () => (due() ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve());

  const system = createRolloutSystem({
    env,
    agent: new GatedPolicy(new RandomPolicy(), gate),
    split: options.split ?? 'train',
    episodes: options.episodes,
    concurrency: options.concurrency,
    seed: options.seed,
  });
  let started = 0;
  let finished = 0;
  const scoredPerSlot = new Map<number, number>();
  system.events.subscribe((event) => {
    if (event.type === 'episode.started') started += 1;
    if (event.type !== 'episode.finished') return;
    finished += 1;
    if (event.outcome === 'aborted') return;
    scoredPerSlot.set(event.slot, (scoredPerSlot.get(event.slot) ?? 0) + 1);
    scored += 1;
    tick();
  });
  try {
    const summary = await system.run();
    for (const open of held.splice(0)) open();
    await Promise.all(restarts);
    for (const [index, before] of placedAtRestart) placedAfterRestart += placed(index) - before;
    const counts = [...scoredPerSlot.values()];
    return {
      summary,
      kills,
      started,
      finished,
      duplicated: counts.filter((count) => count > 1).length,
      unscored: options.episodes - scoredPerSlot.size,
      placedAfterRestart,
      servers: env.stats(),
    };
  } finally {
    await env.close();
  }
}
