/**
 * `--remote agentgym+http://…` through the real `actorgym` entry point, against actorgym's own
 * envs served over AgentGym's HTTP protocol (`actorgym serve ENV --agentgym-http PORT`): the
 * random agent scores exactly as in-process (the pool with a killed server: agentgym-remote-pool.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildServer } from '../../bench/stats.ts';
import { serveAgentGym as serveOn } from './serve-agentgym.ts';
import { runCli } from './run-cli.ts';

const servers: ChildServer[] = [];
const serveAgentGym = (env: string) => serveOn(env, servers);
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});


interface Result {
  slot: number;
  taskId: string;
  outcome: string;
  reward: number;
  turns: number;
}
const played = (results: Result[]) => results.map(({ slot, outcome, reward, turns }) => ({ slot, outcome, reward, turns }));

describe('actorgym rollout --remote agentgym+http://', () => {
  it('scores the random agent as in-process on SciWorld and TextCraft served over AgentGym HTTP', async () => {
    const [sciworld, textcraft] = await Promise.all([serveAgentGym('sciworld'), serveAgentGym('textcraft')]);
    const args = (env: string) => ['rollout', '--env', env, '--agent', 'random', '--episodes', '24', '--seed', '5', '--json'];
    const [localSci, remoteSci, localCraft, remoteCraft] = await Promise.all([
      runCli(args('sciworld')),
      runCli([...args('sciworld'), '--remote', sciworld.remote]),
      runCli(args('textcraft')),
      runCli([...args('textcraft'), '--remote', textcraft.remote]),
    ]);
    for (const run of [localSci, remoteSci, localCraft, remoteCraft]) expect(run.code, run.stderr).toBe(0);
    for (const [local, remote, env] of [[localSci, remoteSci, 'sciworld'], [localCraft, remoteCraft, 'textcraft']] as const) {
      const [want, got] = [JSON.parse(local.stdout), JSON.parse(remote.stdout)];
      // Same slot → same task, seed and valid actions, so the same episode, turn for turn.
      expect(played(got.results)).toEqual(played(want.results));
      expect(got).toMatchObject({ successRate: want.successRate, meanReward: want.meanReward, abortedAttempts: 0 });
      expect(got.results.every((r: Result) => new RegExp(`^${env}_\\d+$`).test(r.taskId))).toBe(true);
    }
    // Not a vacuous match: random TextCraft wins some, and SciWorld's rewards are not all 0.
    expect(JSON.parse(remoteCraft.stdout).outcomes.success).toBeGreaterThan(0);
    expect(JSON.parse(remoteCraft.stdout).outcomes.failure + JSON.parse(remoteCraft.stdout).outcomes.truncated).toBeGreaterThan(0);
  }, 180_000); // child processes on a shared 2-core machine
});
