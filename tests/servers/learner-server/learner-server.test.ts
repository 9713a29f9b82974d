/**
 * Issue 37: the learner server with workers speaking the protocol by hand — welcome with the
 * current weights, a step split among workers, a worker leaving mid-assignment (its groups go to
 * another), duplicates ignored, bad frames refused without costing the connection, auth, probes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLearnerServer, type LearnerServerHandle } from '../../../servers/learner-server/learner-server.ts';
import { decodeWeightsFrame } from '../../../transport/learner-wire/weights-frame.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';
import type { Producer } from '../../../actors/buffer/producer.ts';
import { getJson, refusal } from '../../transport/http-probe.ts';
import { RawPeer, until } from '../../transport/raw-peer.ts';
import type { OpsLog } from '../../../servers/listener/ops-log.ts';
import { group, helloWorker, RUN, weightsAt } from './fixtures.ts';

let server: LearnerServerHandle | undefined;
const peers: RawPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
  await server?.close();
  server = undefined;
});

async function start(options: { token?: string; helloTimeoutMs?: number; maxBufferedBytes?: number; log?: OpsLog } = {}): Promise<LearnerServerHandle> {
  server = await startLearnerServer({ port: 0, run: RUN, weights: weightsAt(3), heartbeatMs: 0, ...options });
  return server;
}

async function worker(url: string, name: string, options: { token?: string } = {}) {
  const joined = await helloWorker(url, name, options);
  peers.push(joined.peer);
  return joined;
}

describe('the learner server', () => {
  it('welcomes a worker with the run and the current weights, and makes names unique', async () => {
    const { url } = await start();
    const { welcome, weights } = await worker(url, 'w');
    expect(welcome).toEqual({ op: 'welcome', protocol: 1, worker: 'w', run: RUN, version: 3 });
    const decoded = decodeWeightsFrame(weights);
    expect(decoded.version).toBe(3);
    expect(Array.from(decoded.tensors[0]!.data)).toEqual([3, -3]);
    expect((await worker(url, 'w')).welcome.worker).toBe('w#2');
    // The remote producer is the training system's Producer (matched structurally: servers may not import actors).
    const producer: Producer = server!.producer;
    expect(producer.name).toBe('remote');
  });

  it('splits a step among two workers and resolves once every group was offered once', async () => {
    const { url, producer } = await start();
    const a = await worker(url, 'a');
    const b = await worker(url, 'b');
    const offered: TrajectoryGroup[] = [];
    const produced = producer.produce({ step: 2, horizon: 6, groups: [0, 1, 2, 3] }, (g) => offered.push(g), new AbortController().signal);
    const assignA = await a.peer.next();
    const assignB = await b.peer.next();
    expect(assignA).toEqual({ op: 'assign', id: expect.any(String), step: 2, horizon: 6, groups: [0, 1] });
    expect(assignB).toMatchObject({ op: 'assign', step: 2, groups: [2, 3] });
    for (const [w, assign] of [[a, assignA], [b, assignB]] as const) {
      for (const index of assign.groups) w.peer.send({ op: 'group', id: assign.id, group: group(2, index, w.welcome.worker) });
      w.peer.send({ op: 'group', id: assign.id, group: group(2, assign.groups[0], w.welcome.worker) }); // a duplicate
      w.peer.send({ op: 'done', id: assign.id });
    }
    await produced;
    expect(offered.map((g) => g.index).sort()).toEqual([0, 1, 2, 3]);
    await until(() => server!.stats().duplicates === 2 && server!.stats().inFlight === 0);
    expect(server!.stats()).toMatchObject({ workers: 2, groups: 4, duplicates: 2, reassigned: 0 });
  });

  it('hands the groups of a worker that left mid-assignment to another, keeping the ones that arrived', async () => {
    const { url, producer } = await start();
    const a = await worker(url, 'a');
    const b = await worker(url, 'b');
    const offered: TrajectoryGroup[] = [];
    const produced = producer.produce({ step: 1, horizon: 6, groups: [0, 1, 2, 3] }, (g) => offered.push(g), new AbortController().signal);
    const assignA = await a.peer.next();
    const assignB = await b.peer.next();
    a.peer.send({ op: 'group', id: assignA.id, group: group(1, 0, 'a') });
    await until(() => offered.length === 1);
    await a.peer.close(); // dies holding group 1
    for (const index of assignB.groups) b.peer.send({ op: 'group', id: assignB.id, group: group(1, index, 'b') });
    b.peer.send({ op: 'done', id: assignB.id });
    const again = await b.peer.next();
    expect(again).toMatchObject({ op: 'assign', step: 1, groups: [1] });
    b.peer.send({ op: 'group', id: again.id, group: group(1, 1, 'b') });
    b.peer.send({ op: 'done', id: again.id });
    await produced;
    expect(offered.map((g) => `${g.index}:${g.producer}`)).toEqual(['0:a', '2:b', '3:b', '1:b']);
    expect(server!.stats()).toMatchObject({ reassigned: 1, workers: 1 });
  });

  it('frees a worker for the next step once its last group is in, before its done arrives', async () => {
    const { url, producer } = await start();
    const a = await worker(url, 'a');
    const b = await worker(url, 'b');
    const signal = new AbortController().signal;
    const first = producer.produce({ step: 1, horizon: 6, groups: [0, 1] }, () => {}, signal);
    const [assignA, assignB] = [await a.peer.next(), await b.peer.next()];
    a.peer.send({ op: 'group', id: assignA.id, group: group(1, 0) });
    b.peer.send({ op: 'group', id: assignB.id, group: group(1, 1) });
    await first;
    const second = producer.produce({ step: 2, horizon: 6, groups: [0, 1] }, () => {}, signal);
    const nextA = await a.peer.next();
    const nextB = await b.peer.next();
    expect(nextA).toMatchObject({ op: 'assign', step: 2, groups: [0] });
    expect(nextB).toMatchObject({ op: 'assign', step: 2, groups: [1] });
    // The late `done` of step 1 is still accepted: no error frame comes back for it.
    a.peer.send({ op: 'done', id: assignA.id });
    b.peer.send({ op: 'done', id: assignB.id });
    a.peer.send({ op: 'group', id: nextA.id, group: group(2, 0) });
    b.peer.send({ op: 'group', id: nextB.id, group: group(2, 1) });
    await second;
    a.peer.send({ op: 'done', id: nextA.id });
    b.peer.send({ op: 'done', id: nextB.id });
    await until(() => server!.stats().inFlight === 0);
    expect(server!.stats().refused).toBe(0);
  });

  it('keeps work until a worker connects, and cancels it on abort', async () => {
    const { url, producer } = await start();
    const offered: TrajectoryGroup[] = [];
    const produced = producer.produce({ step: 1, horizon: 5, groups: [0, 1] }, (g) => offered.push(g), new AbortController().signal);
    const late = await worker(url, 'late');
    const assign = await late.peer.next();
    expect(assign).toMatchObject({ op: 'assign', groups: [0, 1], horizon: 5 });
    for (const index of [0, 1]) late.peer.send({ op: 'group', id: assign.id, group: group(1, index) });
    await produced;
    late.peer.send({ op: 'done', id: assign.id });

    const stop = new AbortController();
    const cancelled = producer.produce({ step: 2, horizon: 5, groups: [0] }, () => {}, stop.signal);
    const second = await late.peer.next();
    stop.abort();
    await expect(cancelled).rejects.toThrow(/step 2: the remote collection was cancelled/);
    expect(await late.peer.next()).toEqual({ op: 'cancel', id: second.id });
    // A group for the cancelled assignment is refused, not offered.
    expect(await late.peer.call({ op: 'group', id: second.id, group: group(2, 0) })).toMatchObject({ op: 'error', code: 'ASSIGNMENT_UNKNOWN', id: second.id });
  });

  it('refuses bad frames with an error naming the field, and the connection goes on', async () => {
    const { url, producer } = await start();
    const early = await RawPeer.open(url);
    peers.push(early);
    expect(await early.call({ op: 'done', id: 'a1' })).toMatchObject({ op: 'error', code: 'HELLO_FIRST' });
    const w = await worker(url, 'w');
    expect(await w.peer.call('{not json')).toMatchObject({ op: 'error', code: 'BAD_JSON' });
    expect(await w.peer.call(Buffer.from([1, 2, 3]), true)).toMatchObject({ op: 'error', code: 'BAD_FRAME' });
    expect(await w.peer.call({ op: 'train' })).toMatchObject({ op: 'error', code: 'UNKNOWN_OP' });
    const offered: TrajectoryGroup[] = [];
    const produced = producer.produce({ step: 1, horizon: 6, groups: [0] }, (g) => offered.push(g), new AbortController().signal);
    const assign = await w.peer.next();
    const malformed = { ...group(1, 0), policyVersion: -1 };
    expect(await w.peer.call({ op: 'group', id: assign.id, group: malformed })).toEqual({
      op: 'error', code: 'BAD_GROUP', id: assign.id, message: expect.stringMatching(/^group\.policyVersion: /),
    });
    expect(await w.peer.call({ op: 'group', id: assign.id, group: group(1, 5) })).toMatchObject({ op: 'error', code: 'BAD_GROUP', message: expect.stringMatching(/not part of assignment/) });
    expect(await w.peer.call({ op: 'group', id: assign.id, group: { ...group(1, 0), episodes: 'x' } })).toMatchObject({ code: 'BAD_GROUP', message: expect.stringMatching(/^group\.episodes: /) });
    w.peer.send({ op: 'group', id: assign.id, group: group(1, 0) });
    await produced;
    expect(offered).toHaveLength(1);
    expect(server!.stats().refused).toBe(7);
  });

  it('closes a worker of another protocol or env, or one that never says hello', async () => {
    const { url } = await start({ helloTimeoutMs: 100 });
    const old = await RawPeer.open(url);
    expect(await old.call({ op: 'hello', protocol: 0, worker: 'x', env: 'babyai' })).toMatchObject({ code: 'PROTOCOL_MISMATCH' });
    expect(await old.closed).toBe(1008);
    const other = await RawPeer.open(url);
    expect(await other.call({ op: 'hello', protocol: 1, worker: 'x', env: 'textcraft' })).toMatchObject({ code: 'ENV_MISMATCH', message: 'this learner trains on "babyai", not "textcraft"' });
    expect(await other.closed).toBe(1008);
    const silent = await RawPeer.open(url);
    expect(await silent.closed).toBe(1008);
  });

  it('broadcasts each published version, and a late worker gets the current one in its welcome', async () => {
    const { url } = await start();
    const early = await worker(url, 'early');
    server!.publish(weightsAt(4));
    expect(await early.peer.next()).toEqual({ op: 'version', version: 4 });
    expect(Array.from(decodeWeightsFrame(await early.peer.next()).tensors[0]!.data)).toEqual([4, -4]);
    expect(server!.producer.version).toBe(4);
    const late = await worker(url, 'late');
    expect(late.welcome.version).toBe(4);
    expect(decodeWeightsFrame(late.weights).version).toBe(4);
  });

  it('closes a worker that does not read its weights frames once too many bytes wait for it', async () => {
    const events: string[] = [];
    const { url } = await start({ maxBufferedBytes: 4 * 1024 * 1024, log: (event) => events.push(event) });
    const slow = await worker(url, 'slow');
    (slow.peer.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = { version: 0, tensors: [{ name: 'w', shape: [256 * 1024], data: new Float32Array(256 * 1024) }] }; // 1 MiB a frame
    for (let v = 1; v <= 64 && !events.includes('worker.slow'); v++) {
      server!.publish({ ...big, version: v });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // Closed with 1008; it does not read the close frame either, so it is cut after the grace period.
    await until(() => server!.stats().workers === 0);
    expect(events.filter((e) => e === 'worker.slow')).toHaveLength(1);
    expect(server!.stats().version).toBeLessThan(64);
  });

  it('refuses a worker without the token (401) and admits one with it', async () => {
    const { url } = await start({ token: 's3cret' });
    expect(await refusal(url)).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
    expect((await worker(url, 'w', { token: 's3cret' })).welcome.op).toBe('welcome');
  });

  it('answers /readyz with its workers, and 503 once draining; drain tells the workers', async () => {
    const { url } = await start();
    const w = await worker(url, 'w');
    expect(await getJson(url, '/readyz')).toMatchObject({ status: 200, body: { ready: true, workers: 1, version: 3 } });
    const drained = server!.drain(1_000);
    expect(await w.peer.next()).toMatchObject({ op: 'drain' });
    await drained;
    expect(await w.peer.closed).toBe(1001);
  });
});
