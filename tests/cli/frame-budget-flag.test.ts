/**
 * `--frame-budget N` beyond `serve` (issue 40): on the event stream of `rollout`/`train`
 * (`--events-port`) and on `learner` (its learner server, and its event stream when there is one).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

describe('--frame-budget', () => {
  it('paces the event stream of rollout --events-port (0 turns it off), and needs --events-port', async () => {
    const run = await runCli(['rollout', '--env', 'babyai', '--episodes', '2', '--json', '--events-port', '0', '--wait-subscribers', '0', '--frame-budget', '0']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).episodes).toBe(2);
    const alone = await runCli(['rollout', '--env', 'babyai', '--episodes', '1', '--frame-budget', '500']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toMatch(/--frame-budget need --events-port/);
    const negative = await runCli(['rollout', '--env', 'babyai', '--events-port', '0', '--frame-budget', '-5']);
    expect(negative.code).toBe(1);
    expect(negative.stderr).toMatch(/--frame-budget must be a non-negative integer, got "-5"/);
  }, 60_000);

  it('is one option of learner, for the learner server and its event stream', async () => {
    const help = await runCli(['learner', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.match(/--frame-budget/g)).toHaveLength(1);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/the learner server \(and --events-port, each its own budget\).*\(default 10000; --events-port 1000\)/);
    expect((await runCli(['serve', '--help'])).stdout.replace(/\s+/g, ' ')).toMatch(/--frame-budget <frames-per-s> frames per second the env server runs .*\(default: 100000\)/);
  }, 60_000);
});
