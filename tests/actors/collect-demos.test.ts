import { describe, expect, it } from 'vitest';
import { collectDemos } from '../../actors/collect-demos.ts';
import { getEnv } from '../../envs/index.ts';

const babyai = getEnv('babyai');

describe('collectDemos (issue 25, item 1)', () => {
  it('gives the same demos for the same seed with the oracle, in task then sample order', async () => {
    const run = (concurrency: number) =>
      collectDemos({ env: babyai, agent: 'oracle', agentName: 'oracle', split: 'train', episodes: 4, samples: 2, seed: 7, concurrency });
    const a = await run(8);
    const b = await run(1);
    expect(b.demos).toEqual(a.demos);
    expect(a).toMatchObject({ episodes: 8, successes: 8, filtered: 0, aborted: 0 });
    const tasks = babyai.tasks('train').slice(0, 4);
    expect(a.demos.map((d) => [d.taskId, d.sample])).toEqual(tasks.flatMap((t) => [[t, 0], [t, 1]]));
    expect(a.demos.every((d) => d.outcome === 'success' && d.agent === 'oracle' && d.split === 'train' && d.env === 'babyai')).toBe(true);
  });

  it('gives the same demos for the same seed with the random agent, and others for another seed', async () => {
    const run = (seed: number, concurrency: number) =>
      collectDemos({ env: babyai, agent: 'random', agentName: 'random', split: 'train', episodes: 5, samples: 2, seed, horizon: 6, concurrency });
    const a = await run(3, 8);
    const b = await run(3, 2);
    const c = await run(4, 8);
    expect(b.demos).toEqual(a.demos);
    expect(c.demos.map((d) => d.turns.map((t) => t.action))).not.toEqual(a.demos.map((d) => d.turns.map((t) => t.action)));
    expect(a.demos.every((d) => d.turns.length <= 6)).toBe(true);
  });

  it('records what the agent saw: each turn the observation and action list it acted on, chained to the env', async () => {
    const { demos } = await collectDemos({ env: babyai, agent: 'random', agentName: 'random', split: 'train', episodes: 3, seed: 1, horizon: 5 });
    for (const demo of demos) {
      const env = babyai.make();
      const reset = await env.reset({ taskId: demo.taskId, seed: demo.seed });
      let observation = reset.observation;
      let listed = reset.info.availableActions;
      for (const turn of demo.turns) {
        expect(turn.observation).toBe(observation);
        expect(turn.availableActions).toEqual(listed);
        expect(turn.availableActions).toContain(turn.action);
        const step = await env.step(turn.action);
        expect(turn.reward).toBe(step.reward);
        observation = step.observation;
        listed = step.info.availableActions;
      }
      expect(demo.finalObservation).toBe(observation);
      await env.close();
    }
  });

  it('keeps successes only with onlySuccess, counting the rest as filtered', async () => {
    const options = { env: babyai, agent: 'random', agentName: 'random', split: 'train', episodes: 8, samples: 2, seed: 2, horizon: 4 } as const;
    const all = await collectDemos(options);
    const only = await collectDemos({ ...options, onlySuccess: true });
    const successes = all.demos.filter((d) => d.outcome === 'success');
    expect(successes.length).toBeGreaterThan(0);
    expect(successes.length).toBeLessThan(all.demos.length);
    expect(only.demos).toEqual(successes);
    expect(only).toMatchObject({ episodes: 16, successes: successes.length, filtered: 16 - successes.length });
  });

  it('refuses more episodes than the split has tasks, and a bad sample count', async () => {
    await expect(collectDemos({ env: babyai, agent: 'oracle', agentName: 'oracle', split: 'test', episodes: 91 })).rejects.toThrow(/has 90 tasks/);
    await expect(collectDemos({ env: babyai, agent: 'oracle', agentName: 'oracle', split: 'test', samples: 0 })).rejects.toThrow(/samples must be a positive integer/);
  });

  it('rejects when stopped, instead of returning part of the set', async () => {
    const stopper = new AbortController();
    const run = collectDemos({
      env: babyai, agent: 'random', agentName: 'random', split: 'train', episodes: 200, seed: 1, concurrency: 2, signal: stopper.signal,
      events: { next: (e) => { if (e.type === 'episode.finished') stopper.abort(new Error('enough')); } },
    });
    await expect(run).rejects.toThrow(/collect stopped: enough/);
  });
});
