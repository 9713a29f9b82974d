/**
 * Issue 39: `rollout --episodes N` took the split's first N tasks (the web env's first 8 test
 * tasks are all shop questions). Through the real entry point, on BabyAI (the first 55 test tasks
 * are all GoTo): N below the split is taken round-robin over the level families, `--pick first`
 * keeps the old first N, `--shuffle` orders the tasks by the seed, and a split the env does not
 * have is refused.
 */
import { describe, expect, it } from 'vitest';
import { getEnv } from '../../envs/index.ts';
import { runCli } from './run-cli.ts';

const rollout = async (extra: string[]) => {
  const { code, stdout, stderr } = await runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--horizon', '1', '--json', ...extra]);
  expect(code, stderr).toBe(0);
  return (JSON.parse(stdout) as { results: { slot: number; taskId: string }[] }).results.sort((a, b) => a.slot - b.slot).map((r) => r.taskId);
};

describe('rollout --episodes N picks across categories (issue 39)', () => {
  it('stratified by default, the first N with --pick first, a seeded order with --shuffle', async () => {
    const babyai = getEnv('babyai');
    const family = (id: string) => babyai.categoryOf!(id);
    const [stratified, first, shuffled, again, other] = await Promise.all([
      rollout(['--episodes', '6']),
      rollout(['--episodes', '6', '--pick', 'first']),
      rollout(['--episodes', '6', '--shuffle', '--seed', '1']),
      rollout(['--episodes', '6', '--shuffle', '--seed', '1']),
      rollout(['--episodes', '6', '--shuffle', '--seed', '2']),
    ]);
    expect(new Set(stratified.map(family)).size).toBe(6);
    expect(first).toEqual(babyai.tasks('test').slice(0, 6));
    expect(new Set(first.map(family))).toEqual(new Set(['GoTo']));
    expect(again).toEqual(shuffled);
    expect(other).not.toEqual(shuffled);
    expect(new Set(shuffled.map(family)).size).toBe(6);
  }, 300_000);

  it('refuses a split the env does not have', async () => {
    const { code, stderr } = await runCli(['rollout', '--env', 'babyai', '--split', 'test-templates', '--episodes', '1']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/env "babyai" has no test-templates tasks/);
  }, 120_000);
});
