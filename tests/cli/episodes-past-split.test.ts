/**
 * Issue 26: `--episodes N` past the split size is refused unless `--repeat` (rollout), and then
 * the output says the tasks repeat; eval's `--tasks`, collect's `--episodes` and train's
 * `--eval-episodes` past the split are refused (their answer for more episodes is --samples).
 */
import { describe, expect, it } from 'vitest';
import { checkEpisodesAgainstSplit } from '../../cli/episodes-past-split.ts';
import { runCli } from './run-cli.ts';

describe('--episodes past the split', () => {
  it('rollout refuses 91 episodes of the 90 BabyAI test tasks without --repeat', async () => {
    const { code, stdout, stderr } = await runCli(['rollout', '--env', 'babyai', '--episodes', '91', '--json']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/--episodes 91 is past the 90 tasks of the test split of babyai; give --episodes 90 or less, or add --repeat/);
  });

  it('rollout --repeat runs them and says the tasks repeat, on stderr and in --json', async () => {
    const { code, stdout, stderr } = await runCli(['rollout', '--env', 'babyai', '--episodes', '92', '--repeat', '--horizon', '1', '--json']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/--repeat: 92 episodes over the 90 tasks of the test split; tasks repeat \(the first 2 run twice, the rest once\)/);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ slots: 92, repeated: { tasks: 90, episodes: 92 } });
    // Slots 90 and 91 are tasks 0 and 1 again.
    expect(summary.results[90].taskId).toBe(summary.results[0].taskId);
    expect(summary.results[91].taskId).toBe(summary.results[1].taskId);
  });

  it('rollout within the split says nothing about repeats', async () => {
    const { code, stdout, stderr } = await runCli(['rollout', '--env', 'babyai', '--episodes', '2', '--repeat', '--horizon', '1', '--json']);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/repeat/);
    expect(JSON.parse(stdout)).not.toHaveProperty('repeated');
  });

  it('eval, collect and train refuse a count past the split', async () => {
    const [evalRun, collect, train] = await Promise.all([
      runCli(['eval', '--agent', 'random', '--env', 'babyai', '--tasks', '91', '--out', '/nonexistent/never-written']),
      runCli(['collect', '--env', 'babyai', '--split', 'test', '--episodes', '91', '--out', 'never-written.jsonl']),
      runCli(['train', '--env', 'babyai', '--steps', '1', '--eval-episodes', '91', '--no-dashboard', '--out', '/nonexistent/never-written']),
    ]);
    expect(evalRun.code).toBe(1);
    expect(evalRun.stderr).toMatch(/--tasks 91 is past the 90 tasks of the test split of babyai; give --tasks 90 or less \(--samples/);
    expect(collect.code).toBe(1);
    expect(collect.stderr).toMatch(/--episodes 91 is past the 90 tasks of the test split of babyai; give --episodes 90 or less \(--samples/);
    expect(train.code).toBe(1);
    expect(train.stderr).toMatch(/--eval-episodes 91 is past the 90 tasks of the test split of babyai/);
  });

  it('counts the repeats in words', () => {
    expect(checkEpisodesAgainstSplit({ episodes: 10, tasks: 10, split: 'test', env: 'e', repeat: false })).toBeUndefined();
    expect(checkEpisodesAgainstSplit({ episodes: 30, tasks: 10, split: 'test', env: 'e', repeat: true })).toMatch(/each runs 3 times/);
    expect(checkEpisodesAgainstSplit({ episodes: 25, tasks: 10, split: 'train', env: 'e', repeat: true })).toMatch(/the first 5 run 3 times, the rest twice/);
    expect(() => checkEpisodesAgainstSplit({ episodes: 11, tasks: 10, split: 'test', env: 'e', repeat: false })).toThrow(/add --repeat/);
  });
});
