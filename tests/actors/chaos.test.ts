/**
 * Chaos, small (issue 24 acceptance; `npx actorgym bench chaos` runs the full count): a rollout
 * of 300 BabyAI episodes on a pool of three `actorgym serve` processes while servers are
 * SIGKILLed and restarted on their ports. Every slot settles exactly once, none aborted, with the
 * same per-slot results as an undisturbed in-process run with the same seed (a random agent's
 * choices depend on the episode's seed and turn only), and restarted servers take episodes again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { ServerFleet } from '../../bench/chaos-fleet.ts';
import { chaosRollout, type ChaosRolloutResult } from '../../bench/chaos-rollout.ts';
import { getEnv } from '../../envs/index.ts';

const EPISODES = 300;
const SEED = 21;
let fleet: ServerFleet;
let chaos: ChaosRolloutResult;

beforeAll(async () => {
  fleet = await ServerFleet.start(3);
  chaos = await chaosRollout({ fleet, episodes: EPISODES, concurrency: 16, seed: SEED, killEvery: 60, maxKills: 3 });
}, 120_000);
afterAll(async () => {
  await fleet?.stop();
});

describe('a rollout while env servers are killed and restarted', () => {
  it('kills real server processes mid-run, and the pool uses the restarted ones again', () => {
    expect(chaos.kills).toBe(3);
    expect(chaos.summary.abortReasons.env_lost ?? 0).toBeGreaterThan(0); // the kills hit running episodes
    expect(chaos.servers.reduce((sum, s) => sum + s.losses, 0)).toBe(3);
    expect(chaos.placedAfterRestart).toBeGreaterThan(0);
  });

  it('settles every task slot exactly once, never duplicated, never lost', () => {
    const { summary } = chaos;
    expect(summary.slots).toBe(EPISODES);
    expect(summary.results.map((r) => r.slot)).toEqual(Array.from({ length: EPISODES }, (_, slot) => slot));
    expect(chaos.duplicated).toBe(0);
    expect(chaos.unscored).toBe(0);
    // Every attempt started once and ended once; the summary counts them all.
    expect(chaos.started).toBe(summary.attempts);
    expect(chaos.finished).toBe(summary.attempts);
    expect(summary.attempts).toBe(EPISODES + summary.abortedAttempts);
  });

  it('keeps the aborted share at or under 1 % and the success rate of the undisturbed run', async () => {
    expect(chaos.summary.abortedShare).toBeLessThanOrEqual(0.01);
    const undisturbed = await createRolloutSystem({ env: getEnv('babyai'), agent: 'random', split: 'train', episodes: EPISODES, concurrency: 16, seed: SEED }).run();
    expect(chaos.summary.successRate).toBe(undisturbed.successRate);
    const outcome = (r: { slot: number; outcome: string; reward: number; turns: number }) => [r.slot, r.outcome, r.reward, r.turns];
    expect(chaos.summary.results.map(outcome)).toEqual(undisturbed.results.map(outcome));
  });
});
