/**
 * Issue 24, acceptance "fuzz with fast-check": thousands of generated requests (fixed seed)
 * against token-guarded AgentGym HTTP servers, one per env flavor's field names, all serving
 * BabyAI, while an honest client plays real episodes through the AgentGym HTTP env client on
 * the BabyAI one. Requests and the rules each response is judged by are in
 * tests/support/fuzz-http-*.ts; docs/reliability.md (## Fuzzing) records the figures.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startAgentGymHttpServer, type AgentGymHttpServer } from '../../servers/agentgym-http/agentgym-http-server.ts';
import { createRolloutSystem, type RolloutSystemOptions } from '../../actors/rollout-system.ts';
import type { EnvErrorCode } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';
import { agentGymHttpDefinition, agentGymTaskOrder } from '../../transport/remote/agentgym-http-env.ts';
import { HTTP_FLAVORS, type HttpFlavor } from '../support/fuzz-http-requests.ts';
import { emptyHttpTally, httpSession, runHttpSession } from '../support/fuzz-http-session.ts';
import { countingDefinition, keepPlaying, memoryNow, watchCrashes, FUZZ_SEED as SEED, HONEST_PAUSE_MS, MAX_HEAP_GROWTH, MAX_RSS_GROWTH } from '../support/fuzz-watch.ts';
import { assertFuzz } from '../support/fuzz-assert.ts';
import { until } from '../transport/raw-peer.ts';

/** Sessions of 1-4 batches of 1-12 requests: about 4,000 requests with this seed. */
const NUM_RUNS = 280;
/** This file's share of the 10,000 frames per CI run (fuzz-ws-env-server sends the rest). */
const MIN_REQUESTS = 4_000;
const TOKENS = { honest: 'honest-token', victim: 'victim-token', fuzzer: 'fuzzer-token' };

/** The Errors section of docs/agentgym-http.md, and the whole doc. */
function httpDoc(): { errors: string; doc: string } {
  const doc = readFileSync(new URL('../../docs/agentgym-http.md', import.meta.url), 'utf8');
  const start = doc.indexOf('## Errors');
  return { errors: doc.slice(start, doc.indexOf('\n## ', start + 1)), doc };
}

/** HTTP statuses docs/agentgym-http.md documents: its error table, and every `HTTP NNN` or `| NNN |` it mentions. */
function documentedStatuses(): Set<number> {
  const { errors, doc } = httpDoc();
  const found = [...errors.matchAll(/\b([1-5]\d\d)\b/g), ...doc.matchAll(/(?:HTTP |\| )([1-5]\d\d)\b/g)].map((m) => Number(m[1]));
  return new Set([200, ...found]);
}

/** Codes a 200 `{"error"}` may carry: those the Errors section names, and the env contract's (an env's `EnvError` keeps its code). */
function documentedErrorCodes(): Set<string> {
  const named = [...httpDoc().errors.matchAll(/`([A-Z][A-Z_]{2,})`/g)].map((m) => m[1] as string);
  const envCodes: readonly EnvErrorCode[] = ['ENV_UNKNOWN', 'ENV_NOT_RESET', 'ENV_CLOSED', 'TASK_UNKNOWN', 'ENV_LOST', 'ENV_TIMEOUT', 'PROTOCOL_ERROR', 'ENV_INTERNAL'];
  return new Set([...named, ...envCodes]);
}

describe('the AgentGym HTTP endpoint under fuzz (issue 24)', () => {
  it('answers every generated request as documented while an honest client gets undisturbed results', async () => {
    const crashes = watchCrashes();
    let honest: { stop(): Promise<unknown[]> } | undefined;
    const babyai = getEnv('babyai');
    const servers = new Map<HttpFlavor, { server: AgentGymHttpServer; live: () => number }>();
    try {
      for (const flavor of HTTP_FLAVORS) {
        const counted = countingDefinition(babyai);
        const server = await startAgentGymHttpServer({ port: 0, definition: counted.definition, adapter: flavor.adapter, token: Object.values(TOKENS) });
        servers.set(flavor, { server, live: counted.live });
      }
      const honestServer = servers.get(HTTP_FLAVORS[0] as HttpFlavor)?.server as AgentGymHttpServer;
      const order = agentGymTaskOrder(babyai);
      // An unmodified AgentGym client carries its token in the base URL (docs/agentgym-http.md#tokens).
      const honestEnv = agentGymHttpDefinition(`${honestServer.url}/token/${TOKENS.honest}`, {
        spec: babyai.spec,
        tasks: { test: babyai.tasks('test'), train: babyai.tasks('train') },
        taskIndex: (id) => order.dataIdxOf(id) ?? -1,
      });
      const honestRun = (options: Omit<RolloutSystemOptions, 'env'>) => createRolloutSystem({ env: honestEnv, ...options }).run();
      const episodes = { agent: 'random', split: 'test', episodes: 24, concurrency: 6, seed: 24 } as const;
      const undisturbed = await honestRun(episodes);
      expect(undisturbed.outcomes.aborted).toBe(0);
      const before = memoryNow();

      honest = keepPlaying(() => honestRun(episodes), HONEST_PAUSE_MS);
      const tally = emptyHttpTally();
      const actions = ['turn left', 'turn right', 'move forward', 'go to red ball 1', 'pickup red ball 1', 'check available actions', 'toggle'];
      const target = {
        urlFor: (flavor: HttpFlavor) => servers.get(flavor)?.server.url as string,
        tokens: { fuzzer: TOKENS.fuzzer, victim: TOKENS.victim },
        statuses: documentedStatuses(),
        errorCodes: documentedErrorCodes(),
      };
      const started = performance.now();
      await assertFuzz(
        fc.asyncProperty(httpSession(order.size, actions), (session) => runHttpSession(target, session, tally)),
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
      // Every server still serves: a fresh honest call on each.
      for (const { server } of servers.values()) {
        const reply = await fetch(`${server.url}/create`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.honest}` }, body: '{}' });
        expect(reply.status).toBe(200);
        const created = (await reply.json()) as unknown;
        const id = typeof created === 'number' ? created : (created as { id: number }).id;
        const closeBody = JSON.stringify({ id, env_idx: id });
        expect(await (await fetch(`${server.url}/close`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.honest}` }, body: closeBody })).json()).toBe(true);
      }
      // Once the clients closed theirs, no instance is left: in the servers' tables and in the envs made.
      await until(() => [...servers.values()].every(({ server, live }) => server.stats().instances === 0 && live() === 0), 10_000);
      const after = memoryNow();

      console.info(
        `fuzz-agentgym-http: ${tally.requests} requests (seed ${SEED}, ${NUM_RUNS} sessions, ${tally.raw} raw) in ${(fuzzMs / 1000).toFixed(1)} s; ` +
          `statuses ${JSON.stringify(tally.statuses)}, 200 errors ${JSON.stringify(tally.errors)}, ${tally.cutOff} huge bodies cut off, ` +
          `${tally.victimsIntact} victims intact; honest runs ${runs.length}; ` +
          `heap ${mib(before.heapUsed)} → ${mib(after.heapUsed)} MiB, rss ${mib(before.rss)} → ${mib(after.rss)} MiB`,
      );
      expect(tally.requests).toBeGreaterThanOrEqual(MIN_REQUESTS);
      expect(after.heapUsed - before.heapUsed).toBeLessThan(MAX_HEAP_GROWTH);
      expect(after.rss - before.rss).toBeLessThan(MAX_RSS_GROWTH);
      expect(crashes.crashes).toEqual([]);
    } finally {
      await honest?.stop().catch(() => {});
      crashes.stop();
      await Promise.all([...servers.values()].map(({ server }) => server.close()));
    }
  }, 300_000);
  it('answers JSON nested 20,000 deep with a 400 naming the field, not a crash or ENV_INTERNAL (issue 24, found by this fuzz)', async () => {
    const crashes = watchCrashes();
    const server = await startAgentGymHttpServer({ port: 0, definition: getEnv('babyai') });
    try {
      const deep = '['.repeat(20_000) + ']'.repeat(20_000); // 40 KB, under the 64 KiB body limit
      const post = async (path: string, body: string) => {
        const reply = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
        return { status: reply.status, body: (await reply.json()) as { error: string } };
      };
      expect(await post('/create', deep)).toMatchObject({ status: 400, body: { error: expect.stringContaining('must be a JSON object') } });
      expect(await post('/step', `{"id":${deep},"action":"x"}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('"id"') } });
      expect(await post('/step', `{"id":0,"action":${deep}}`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('"action"') } });
      expect(crashes.crashes).toEqual([]);
    } finally {
      crashes.stop();
      await server.close();
    }
  });
});

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
