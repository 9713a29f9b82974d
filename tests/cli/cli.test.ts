import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

describe('actorgym CLI (smoke)', () => {
  it('lists envs as JSON', async () => {
    const { code, stdout } = await runCli(['envs', '--json']);
    expect(code).toBe(0);
    const envs = JSON.parse(stdout) as { id: string; test: number; defaultHorizon: number }[];
    expect(envs.find((env) => env.id === 'babyai')).toMatchObject({ test: 90, defaultHorizon: 20, oracle: true });
    // Issue 27: listed without starting the sites or the browser (startup-modules.test.ts).
    expect(envs.find((env) => env.id === 'web')).toMatchObject({
      // Issue 39 added multi-hop, multi-site (`multi/…`) and infeasible templates, and the held-out-template split.
      train: 448,
      test: 150,
      testTemplates: 50,
      defaultHorizon: 15,
      oracle: true,
      testCategories: {
        'shop/info': 36, 'shop/nav': 15, 'shop/state': 16, 'forum/info': 30, 'forum/nav': 14, 'forum/state': 21,
        'multi/state': 4, 'multi/info': 4, 'shop/infeasible': 4, 'forum/infeasible': 6,
      },
    });
  });

  it('rollout --json prints one summary object with the contract fields', async () => {
    const { code, stdout } = await runCli(['rollout', '--env', 'babyai', '--agent', 'oracle', '--episodes', '6', '--seed', '3', '--json']);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ env: 'babyai', split: 'test', episodes: 6, successRate: 1 });
    for (const field of ['meanReward', 'meanTurns', 'outcomes']) expect(summary).toHaveProperty(field);
    expect(Object.keys(summary.outcomes).sort()).toEqual(['aborted', 'failure', 'success', 'truncated']);
  });

  it('is reproducible with --seed', async () => {
    const args = ['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '12', '--seed', '9', '--json'];
    const [a, b] = await Promise.all([runCli(args), runCli([...args, '--concurrency', '3'])]);
    expect(JSON.parse(a.stdout).results).toEqual(JSON.parse(b.stdout).results);
  });

  it('prints a human summary without --json', async () => {
    const { code, stdout } = await runCli(['rollout', '--env', 'babyai', '--agent', 'random', '--episodes', '4', '--horizon', '6']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/babyai test split, agent random, seed 0, horizon 6/);
    expect(stdout).toMatch(/success/);
  });

  it('explains bad input with one clear line and a non-zero exit', async () => {
    const unknownEnv = await runCli(['rollout', '--env', 'nope']);
    expect(unknownEnv.code).toBe(1);
    expect(unknownEnv.stderr).toMatch(/unknown env "nope"; known envs: babyai/);
    expect(unknownEnv.stderr).not.toMatch(/at .*\.ts/);
    const badSchedule = await runCli(['rollout', '--env', 'babyai', '--schedule', 'scaling:[2,x]@3']);
    expect(badSchedule.code).toBe(1);
    expect(badSchedule.stderr).toMatch(/horizon "x" is not a positive integer/);
    const badEpisodes = await runCli(['rollout', '--env', 'babyai', '--episodes', '-3']);
    expect(badEpisodes.code).not.toBe(0);
    expect(badEpisodes.stderr).toMatch(/--episodes must be a positive integer/);
    const badAgent = await runCli(['rollout', '--env', 'babyai', '--agent', 'gpt']);
    expect(badAgent.stderr).toMatch(/unknown agent "gpt"/);
  });

  it('has --help for every command', async () => {
    for (const command of ['rollout', 'serve', 'envs', 'bench']) {
      const { code, stdout } = await runCli([command, '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/Usage: actorgym/);
    }
  });

  it('lets npm start run without the dashboard, as train does', async () => {
    // `npm start -- --no-dashboard`: the main job takes the dashboard options of `train`.
    const { code, stdout } = await runCli(['start', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--no-dashboard/);
    expect(stdout).toMatch(/--dashboard-port <port>/);
    const bad = await runCli(['start', '--dashboard-port', 'x']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/dashboard-port/);
  });
});
