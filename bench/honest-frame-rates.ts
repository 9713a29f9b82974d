/**
 * What honest clients send the learner server and the event server, to set their frame budgets
 * well above it (issue 40, docs/reliability.md#hardening-round-two-connection-budgets): in-process
 * BabyAI workers with the tiny model collecting one step of groups for a learner server, and
 * observers (`observeRun`) of an event stream of a few thousand events. Prints one JSON line each.
 *
 *   npx tsx bench/honest-frame-rates.ts      # sizes: HONEST_GROUPS (32), HONEST_WORKERS (2), HONEST_OBSERVERS (8)
 */
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { buildTokenizer } from '../actors/training/tokenizer-corpus.ts';
import { transformerRunModel } from '../actors/training/transformer-run-model.ts';
import { runSpecOf } from '../actors/worker/run-spec.ts';
import { runWorker } from '../actors/worker/run-worker.ts';
import { openWorkerPolicy } from '../actors/worker/worker-policy.ts';
import { getEnv } from '../envs/index.ts';
import { freshModels } from '../learner/run-models.ts';
import { resolveConfig } from '../learner/training-config.ts';
import { selectBackend } from '../policy/backend.ts';
import { startEventServer } from '../servers/event-server/event-server.ts';
import { startLearnerServer } from '../servers/learner-server/learner-server.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { observeRun } from '../transport/observe-run.ts';

const size = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Workers collect one step of `groups` groups; frames the learner server received per second, and the mean group frame. */
async function learnerRate(groups: number, workers: number): Promise<Record<string, number>> {
  const env = getEnv('babyai');
  const config = resolveConfig('babyai', {
    steps: 1, tasksPerStep: groups, groupSize: 4, concurrency: 8, seed: 11, maxVocab: 200, corpusTasks: 4,
    model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 96 },
  });
  await selectBackend('cpu');
  const tokenizer = await buildTokenizer(env, { seed: config.seed, tasks: config.corpusTasks, maxVocab: config.maxVocab });
  const learner = transformerRunModel(env, freshModels(tokenizer, config), config, undefined, undefined);
  const server = await startLearnerServer({ port: 0, run: runSpecOf(config, tokenizer.toJSON()), weights: await learner.exportWeights(0), heartbeatMs: 0 });
  const stop = new AbortController();
  const running = Array.from({ length: workers }, (_, i) =>
    runWorker({ learner: server.url, name: `w${i}`, env: 'babyai', open: openWorkerPolicy({ env, backend: 'cpu' }), signal: stop.signal }));
  let bytes = 0;
  const t0 = performance.now();
  const work = { step: 1, horizon: 8, groups: Array.from({ length: groups }, (_, i) => i) };
  await server.producer.produce(work, (group) => void (bytes += JSON.stringify(group).length), new AbortController().signal);
  const seconds = (performance.now() - t0) / 1000;
  const { frames } = server.stats();
  stop.abort();
  await Promise.allSettled(running);
  await server.close();
  learner.dispose();
  return { workers, groups, seconds: round(seconds), frames, framesPerSecond: round(frames / seconds), framesPerWorkerSecond: round(frames / seconds / workers), meanGroupBytes: Math.round(bytes / groups) };
}

/** Observers of a stream of `events` events: frames the event server received in all. */
async function eventRate(observers: number, events: number): Promise<Record<string, number>> {
  const source = new Subject<TrainingEvent>();
  const server = await startEventServer({ port: 0, events: source, heartbeatMs: 0 });
  const seen = Array.from({ length: observers }, () => lastValueFrom(observeRun(server.url).pipe(toArray())));
  await server.waitForSubscribers(observers, { timeoutMs: 10_000 });
  for (let i = 0; i < events; i++) source.next({ type: 'agent.acted', t: i, episodeId: `e${i}`, turn: 0, action: 'inc' });
  source.complete();
  const received = (await Promise.all(seen)).reduce((sum, list) => sum + list.length, 0);
  const { frames } = server.stats();
  await server.close();
  return { observers, events, eventsDelivered: received, frames, framesPerObserver: round(frames / observers) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export async function runHonestFrameRatesBench(): Promise<void> {
  console.log(JSON.stringify({ server: 'learner', ...(await learnerRate(size('HONEST_GROUPS', 32), size('HONEST_WORKERS', 2))) }));
  console.log(JSON.stringify({ server: 'events', ...(await eventRate(size('HONEST_OBSERVERS', 8), 2_000)) }));
}

if (import.meta.url === `file://${process.argv[1]}`) await runHonestFrameRatesBench();
