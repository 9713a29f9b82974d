import { filter, firstValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer, type EnvServerHandle } from '../../servers/env-server/env-server.ts';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { getEnv } from '../../envs/index.ts';
import { remoteEnvDefinition, type RemoteEnvDefinition } from '../../transport/remote/ws-client.ts';
import type { EpisodeFinished, RunEvent } from '../../streams/events.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { startChildServer, type ChildServer } from '../../bench/stats.ts';

const babyai = getEnv('babyai');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serveBabyai(): Promise<EnvServerHandle> {
  const server = await startEnvServer({ port: 0, resolveEnv: () => babyai });
  cleanups.push(() => server.close());
  return server;
}

async function remote(url: string): Promise<RemoteEnvDefinition> {
  const definition = await remoteEnvDefinition(url, 'babyai');
  cleanups.push(() => definition.close());
  return definition;
}

describe('rollouts against a remote env server', () => {
  it('gives the same per-episode outcomes and rewards as in-process for the same seed', async () => {
    const server = await serveBabyai();
    const env = await remote(server.url);
    const options = { agent: 'random' as const, split: 'test' as const, seed: 11, concurrency: 16 };
    const local = await createRolloutSystem({ env: babyai, ...options }).run();
    const overWs = await createRolloutSystem({ env, ...options }).run();
    expect(overWs.episodes).toBe(90);
    expect(overWs.outcomes.aborted).toBe(0);
    expect(overWs.results).toEqual(local.results);
    // And the oracle works remotely too: the server answers `oracle` from its own env state.
    const oracle = await createRolloutSystem({ env, agent: 'oracle', split: 'test', episodes: 18, concurrency: 6 }).run();
    expect(oracle.successRate).toBe(1);
  });

  it('delivers every episode.finished of a run to an observer on the event stream', async () => {
    const system = createRolloutSystem({ env: babyai, agent: 'random', split: 'train', episodes: 120, concurrency: 32, seed: 2 });
    const events = await startEventServer({ port: 0, events: system.events });
    cleanups.push(() => events.close());
    const observed = firstValueFrom(observeRun(events.url).pipe(toArray()));
    // Wait until the observer is subscribed before the run starts.
    await new Promise<void>((resolve) => {
      const poll = () => (events.stats().subscribers > 0 ? resolve() : setTimeout(poll, 5));
      poll();
    });
    const summary = await system.run();
    const received = (await observed).filter((e): e is EpisodeFinished => e.type === 'episode.finished');
    expect(received).toHaveLength(summary.attempts);
    expect(new Set(received.map((e) => e.episodeId)).size).toBe(summary.attempts);
    expect(received.map((e) => [e.slot, e.outcome, e.reward]).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(
      summary.results.map((r) => [r.slot, r.outcome, r.reward]),
    );
  });
});

describe('an env server killed mid-run', () => {
  let server: ChildServer | undefined;
  afterEach(async () => {
    await server?.stop();
  });

  it('ends the affected episodes as aborted, never success or failure, and the run still resolves', async () => {
    server = await startChildServer(['babyai', '--port', '0']);
    const env = await remote(server.urls[0] as string);
    const system = createRolloutSystem({ env, agent: 'random', split: 'train', episodes: 400, concurrency: 8, seed: 4 });
    const events: RunEvent[] = [];
    let finished = 0;
    system.events.subscribe((event) => {
      events.push(event);
      if (event.type === 'episode.finished' && ++finished === 20) server?.child.kill('SIGKILL');
    });
    const summary = await system.run();
    expect(summary.outcomes.aborted).toBeGreaterThan(0);
    expect(summary.outcomes.success + summary.outcomes.failure + summary.outcomes.truncated).toBeGreaterThanOrEqual(19);
    const aborted = events.filter((e): e is EpisodeFinished => e.type === 'episode.finished' && e.outcome === 'aborted');
    expect(aborted.every((e) => e.reward === 0 && e.abortReason === 'env_lost')).toBe(true);
    // Every slot settled exactly once, and the ledger saw every attempt end.
    expect(summary.episodes).toBe(400);
    expect(events.filter((e) => e.type === 'episode.started')).toHaveLength(summary.attempts);
  });
});
