/**
 * Issue 24, acceptance "fuzz with fast-check": thousands of generated frames (fixed seed) against
 * a token-guarded BabyAI env server while an honest client plays real episodes on it. The frames
 * and the rules each reply is judged by are in tests/support/fuzz-ws-*.ts; docs/reliability.md
 * (## Fuzzing) records the figures. It extends ws-bad-frames.test.ts, whose hand-written bad
 * frames each have an exact expected reply, to generated ones judged by the protocol's rules.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { createRolloutSystem, type RolloutSystemOptions } from '../../actors/rollout-system.ts';
import { EnvError, getEnv } from '../../envs/index.ts';
import { remoteEnvDefinition } from '../../transport/remote/ws-client.ts';
import { ENV_SERVER_MAX_PAYLOAD } from '../../transport/wire/limits.ts';
import { emptyWsTally, runWsSession, wsSession } from '../support/fuzz-ws-session.ts';
import { keepPlaying, memoryNow, watchCrashes, FUZZ_SEED as SEED, HONEST_PAUSE_MS, MAX_HEAP_GROWTH, MAX_RSS_GROWTH } from '../support/fuzz-watch.ts';
import { assertFuzz } from '../support/fuzz-assert.ts';
import { until } from '../transport/raw-peer.ts';

/** Sessions of 1-4 batches of 1-30 frames (fast-check's small sizes): about 7,000 frames with this seed. */
const NUM_RUNS = 450;
/** This file's share of the 10,000 frames per CI run (fuzz-agentgym-http sends the rest). */
const MIN_FRAMES = 6_000;
const TOKEN = 'fuzz-token';

/** The close codes docs/protocol.md documents: a server may close a fuzzing peer with these only. */
function documentedCloseCodes(): Set<number> {
  const doc = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Close codes'), doc.indexOf('\n## ', doc.indexOf('## Close codes') + 1));
  return new Set([...section.matchAll(/^\| (\d{4}) \|/gm)].map((m) => Number(m[1])));
}

describe('the WS env server under fuzz (issue 24)', () => {
  it('answers every generated frame as documented while an honest rollout gets undisturbed results', async () => {
    const crashes = watchCrashes();
    let honest: { stop(): Promise<unknown[]> } | undefined;
    const babyai = getEnv('babyai');
    const server = await startEnvServer({
      port: 0,
      token: TOKEN,
      resolveEnv: (id) => {
        if (id === 'babyai') return babyai;
        throw new EnvError('ENV_UNKNOWN', `this server serves "babyai", not "${id}"`);
      },
    });
    try {
      const honestRun = async (options: Omit<RolloutSystemOptions, 'env'>) => {
        const env = await remoteEnvDefinition(server.url, 'babyai', { token: TOKEN });
        try {
          return await createRolloutSystem({ env, ...options }).run();
        } finally {
          await env.close();
        }
      };
      const episodes = { agent: 'random', split: 'test', episodes: 24, concurrency: 6, seed: 24 } as const;
      const undisturbed = await honestRun(episodes);
      const before = memoryNow();

      honest = keepPlaying(() => honestRun(episodes), HONEST_PAUSE_MS);
      const tally = emptyWsTally();
      const actions = ['turn left', 'turn right', 'move forward', 'go to red ball 1', 'pickup red ball 1', 'check available actions', 'toggle'];
      const target = { url: server.url, token: TOKEN, maxPayload: ENV_SERVER_MAX_PAYLOAD, closeCodes: documentedCloseCodes() };
      const started = performance.now();
      await assertFuzz(
        fc.asyncProperty(wsSession(babyai.tasks('test').slice(0, 20), actions), (session) => runWsSession(target, session, tally)),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      const fuzzMs = performance.now() - started;
      const runs = (await honest.stop()) as Awaited<ReturnType<typeof honestRun>>[];
      honest = undefined;

      expect(runs.length).toBeGreaterThan(0);
      for (const run of runs) {
        expect(run.outcomes.aborted).toBe(0);
        expect(run.results).toEqual(undisturbed.results);
      }
      // The server still serves a fresh client: a whole oracle episode.
      const oracle = await honestRun({ agent: 'oracle', split: 'test', episodes: 4, concurrency: 2, seed: 1 });
      expect(oracle.successRate).toBe(1);
      // Every connection gone, every instance closed.
      await until(() => server.stats().connections === 0 && server.stats().instances === 0, 10_000);
      const after = memoryNow();

      console.info(
        `fuzz-ws: ${tally.frames} frames (seed ${SEED}, ${NUM_RUNS} sessions) in ${(fuzzMs / 1000).toFixed(1)} s; ` +
          `${tally.replies} replies (${tally.results} results), errors ${JSON.stringify(tally.errors)}, closes ${JSON.stringify(tally.closes)}, ` +
          `${tally.refusedHandshakes} intruder upgrades refused; honest runs ${runs.length}; ` +
          `heap ${mib(before.heapUsed)} → ${mib(after.heapUsed)} MiB, rss ${mib(before.rss)} → ${mib(after.rss)} MiB`,
      );
      expect(tally.frames).toBeGreaterThanOrEqual(MIN_FRAMES);
      expect(after.heapUsed - before.heapUsed).toBeLessThan(MAX_HEAP_GROWTH);
      expect(after.rss - before.rss).toBeLessThan(MAX_RSS_GROWTH);
      expect(crashes.crashes).toEqual([]);
    } finally {
      await honest?.stop().catch(() => {});
      crashes.stop();
      await server.close();
    }
  });
});

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
