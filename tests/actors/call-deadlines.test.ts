import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { CallDeadlines, sweepPeriodMs } from '../../actors/call-deadlines.ts';
import type { EpisodeEvent, EpisodeInput } from '../../machines/episode.machine.ts';

const input = (episodeId: string): EpisodeInput => ({
  episodeId,
  taskId: 't',
  slot: 0,
  attempt: 0,
  seed: 0,
  maxTurns: 5,
  policyVersion: 0,
  envTimeoutMs: 100,
  agentTimeoutMs: 400,
});

function recorder() {
  const got: EpisodeEvent[] = [];
  return { got, send: (event: EpisodeEvent) => got.push(event) };
}

describe('call deadlines (one sweep per run)', () => {
  it('sends the failure of the state that waited once its deadline passes, within one period', () => {
    const clock = new SimulatedClock();
    const deadlines = new CallDeadlines(clock, 25);
    const env = recorder();
    const agent = recorder();
    deadlines.arm(input('e1'), 'stepping', env);
    deadlines.arm(input('e2'), 'acting', agent);
    clock.increment(99);
    expect(env.got).toEqual([]);
    clock.increment(26);
    expect(env.got).toEqual([{ type: 'ENV.FAILED', reason: 'env_timeout', error: 'env step passed its deadline' }]);
    clock.increment(300);
    expect(agent.got).toEqual([{ type: 'AGENT.FAILED', reason: 'agent_timeout', error: 'agent passed its deadline' }]);
    expect(deadlines.size).toBe(0);
  });

  it('re-arming replaces the deadline: a call answered in time never fires', () => {
    const clock = new SimulatedClock();
    const deadlines = new CallDeadlines(clock, 25);
    const episode = recorder();
    for (let turn = 0; turn < 10; turn++) {
      deadlines.arm(input('e1'), turn % 2 ? 'stepping' : 'acting', episode);
      clock.increment(50);
    }
    deadlines.disarm('e1');
    clock.increment(1_000);
    expect(episode.got).toEqual([]);
  });

  it('stops its timer when nothing is pending, and on stop()', () => {
    const clock = new SimulatedClock();
    const deadlines = new CallDeadlines(clock, 25);
    const episode = recorder();
    deadlines.arm(input('e1'), 'resetting', episode);
    deadlines.stop();
    clock.increment(1_000);
    expect(episode.got).toEqual([]);
  });

  it('sweeps at a quarter of the shortest timeout, between 5 ms and 1 s', () => {
    expect(sweepPeriodMs(30_000, 120_000)).toBe(1_000);
    expect(sweepPeriodMs(100, 400)).toBe(25);
    expect(sweepPeriodMs(4, 400)).toBe(5);
  });
});
