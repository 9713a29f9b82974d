/** Shared pieces of the learner server tests: a run spec, weights, groups, and a worker speaking the protocol by hand. */
import { RawPeer } from '../../transport/raw-peer.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';

export const RUN = { env: 'babyai', seed: 1, tasksPerStep: 4, groupSize: 2, concurrency: 4, temperature: 1, config: { algo: 'grpo' } };

export const weightsAt = (version: number) => ({
  version,
  tensors: [{ name: 'w', shape: [2], data: new Float32Array([version, -version]) }],
});

export function group(step: number, index: number, producer = 'w1'): TrajectoryGroup {
  return { step, index, taskId: `task-${index}`, horizon: 6, policyVersion: 0, producer, episodes: [], results: [] };
}

/** A worker that has said hello and read its welcome and weights frame. */
export async function helloWorker(url: string, name: string, options: { token?: string } = {}): Promise<{ peer: RawPeer; welcome: any; weights: Buffer }> {
  const peer = await RawPeer.open(url, options);
  peer.send({ op: 'hello', protocol: 1, worker: name, env: 'babyai' });
  const welcome = await peer.next();
  const weights = (await peer.next()) as Buffer;
  return { peer, welcome, weights };
}
