/**
 * Issue 37: a rollout worker (fake policy and producer) against a real learner server — it is
 * welcomed with the current weights, runs assignments, applies a new version only between
 * assignments, pauses while the learner is away and reconnects with backoff, getting the current
 * version before it sends again; a refused token ends it with a clear error.
 */
import { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import type { NamedWeights, StepWork } from '../../../actors/buffer/producer.ts';
import { runWorker } from '../../../actors/worker/run-worker.ts';
import type { WorkerPolicy, WorkerStats } from '../../../actors/worker/worker-session.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';
import { startLearnerServer, type LearnerServerHandle } from '../../../servers/learner-server/learner-server.ts';
import { until } from '../../transport/raw-peer.ts';
import { RUN, weightsAt } from '../../servers/learner-server/fixtures.ts';

const FAST = { initialMs: 20, maxMs: 50, factor: 2 };

/** A policy whose producer makes one group per index, stamped with the version it holds, and waits for `gate` before finishing. */
class FakePolicy implements WorkerPolicy {
  version = -1;
  readonly loads: number[] = [];
  gate: Promise<void> = Promise.resolve();
  readonly started: StepWork[] = [];
  readonly producer = {
    name: 'fake',
    get version() { return 0; },
    produce: async (work: StepWork, offer: (g: TrajectoryGroup) => void, signal: AbortSignal) => {
      this.started.push(work);
      const version = this.version;
      for (const index of work.groups) {
        await this.gate;
        if (signal.aborted) throw new Error('cancelled');
        offer({ step: work.step, index, taskId: `t${index}`, horizon: work.horizon, policyVersion: version, producer: 'fake', episodes: [], results: [] });
      }
    },
  };
  load(weights: NamedWeights): void {
    this.version = weights.version;
    this.loads.push(weights.version);
  }
  dispose(): void {}
}

let server: LearnerServerHandle | undefined;
const stops: AbortController[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await server?.close();
  server = undefined;
});

function startWorker(url: string, policy: FakePolicy, options: { token?: string } = {}): { done: Promise<WorkerStats>; stats: () => WorkerStats } {
  const stop = new AbortController();
  stops.push(stop);
  let stats: WorkerStats | undefined;
  const done = runWorker({
    learner: url, name: 'w', env: 'babyai', open: async () => policy, signal: stop.signal, backoff: FAST, onStats: (s) => (stats = s),
    ...(options.token ? { token: options.token } : {}),
  });
  return { done, stats: () => stats! };
}

describe('runWorker', () => {
  it('runs assignments with the welcome weights and applies a new version only between assignments', async () => {
    server = await startLearnerServer({ port: 0, run: RUN, weights: weightsAt(2), heartbeatMs: 0 });
    const policy = new FakePolicy();
    startWorker(server.url, policy);
    await until(() => server!.stats().workers === 1);
    const groups: TrajectoryGroup[] = [];
    const signal = new AbortController().signal;
    let release!: () => void;
    policy.gate = new Promise((resolve) => (release = resolve));
    const first = server.producer.produce({ step: 1, horizon: 6, groups: [0, 1] }, (g) => groups.push(g), signal);
    await until(() => policy.started.length === 1);
    server.publish(weightsAt(3)); // arrives mid-assignment
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await first;
    expect(groups.map((g) => [g.index, g.policyVersion, g.producer])).toEqual([[0, 2, 'w'], [1, 2, 'w']]);
    await server.producer.produce({ step: 2, horizon: 6, groups: [0] }, (g) => groups.push(g), signal);
    expect(groups.at(-1)!.policyVersion).toBe(3);
    expect(policy.loads).toEqual([2, 3]);
  });

  it('pauses while the learner is away, reconnects, and gets the current version before it sends again', async () => {
    server = await startLearnerServer({ port: 0, run: RUN, weights: weightsAt(1), heartbeatMs: 0 });
    const port = server.port;
    const policy = new FakePolicy();
    const worker = startWorker(server.url, policy);
    await until(() => server!.stats().workers === 1);
    let release!: () => void;
    policy.gate = new Promise((resolve) => (release = resolve));
    const lost = server.producer.produce({ step: 1, horizon: 6, groups: [0] }, () => {}, new AbortController().signal);
    lost.catch(() => {});
    await until(() => policy.started.length === 1);
    await server.close(); // the learner dies mid-assignment
    await expect(lost).rejects.toThrow(/closed/);
    release();
    await new Promise((resolve) => setTimeout(resolve, 100)); // a few reconnect attempts against a dead port
    expect(worker.stats().cancelled).toBe(1);
    server = await startLearnerServer({ port, run: RUN, weights: weightsAt(7), heartbeatMs: 0 });
    await until(() => server!.stats().workers === 1);
    const groups: TrajectoryGroup[] = [];
    await server.producer.produce({ step: 1, horizon: 6, groups: [0, 1] }, (g) => groups.push(g), new AbortController().signal);
    expect(groups.map((g) => g.policyVersion)).toEqual([7, 7]);
    expect(policy.loads).toEqual([1, 7]);
    expect(worker.stats().connects).toBe(2);
  });

  it('ends with a clear error when the learner refuses its token, or its env', async () => {
    server = await startLearnerServer({ port: 0, run: RUN, weights: weightsAt(0), heartbeatMs: 0, token: 'right' });
    await expect(startWorker(server.url, new FakePolicy(), { token: 'wrong' }).done).rejects.toThrow(/refused the token \(HTTP 401\)/);
    const stop = new AbortController();
    stops.push(stop);
    await expect(runWorker({ learner: server.url, token: 'right', name: 'w', env: 'textcraft', open: async () => new FakePolicy(), signal: stop.signal, backoff: FAST }))
      .rejects.toThrow(/the learner refused this worker: this learner trains on "babyai", not "textcraft"/);
  });

  it('drops a learner that stops answering pings (a machine gone without a FIN) and connects again', async () => {
    const mute = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false });
    await new Promise((resolve) => mute.once('listening', resolve));
    let connections = 0;
    mute.on('connection', () => connections++);
    const stop = new AbortController();
    stops.push(stop);
    const { port } = mute.address() as { port: number };
    let stats: WorkerStats | undefined;
    const done = runWorker({
      learner: `ws://127.0.0.1:${port}`, name: 'w', env: 'babyai', open: async () => new FakePolicy(), signal: stop.signal, backoff: FAST, heartbeatMs: 30,
      onStats: (s) => (stats = s),
    });
    // Each connection is dropped for its missed pong, then opened again.
    await until(() => connections >= 2 && stats!.connects >= 2, 3_000);
    stop.abort();
    await done;
    for (const client of mute.clients) client.terminate();
    await new Promise((resolve) => mute.close(resolve));
  });
});
