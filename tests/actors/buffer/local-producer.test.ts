// Issue 37: the local producer collects the groups it is given (slots index·G … index·G + G − 1,
// with the seeds and episode ids they have in the whole step), offers each whole with the token
// records its policy handed out on release, and changes weights only between steps.
import { describe, expect, it } from 'vitest';
import { LocalProducer } from '../../../actors/buffer/local-producer.ts';
import { getEnv } from '../../../envs/index.ts';
import type { RecordedTrajectory } from '../../../policy/observation-filter.ts';
import type { ActRequest, Decision } from '../../../policy/policy.ts';
import type { TrajectoryGroup } from '../../../learner/trajectory-group.ts';
import type { RecordingAgent } from '../../../actors/training/run-model.ts';

/** Picks an action from the request's seed and turn; records one token per turn; keeps nothing after release. */
class StubAgent implements RecordingAgent {
  readonly name = 'stub';
  version = 0;
  readonly turns = new Map<string, (readonly string[] | undefined)[]>();
  constructor(readonly delayMs = 0) {}
  async act(batch: readonly ActRequest[]): Promise<readonly Decision[]> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return batch.map((r) => {
      this.turns.set(r.episodeId, [...(this.turns.get(r.episodeId) ?? []), r.availableActions]);
      const actions = r.availableActions ?? ['turn left'];
      return { action: actions[(r.seed + r.turn) % actions.length]! };
    });
  }
  release(episodeId: string): RecordedTrajectory | undefined {
    const turns = this.turns.get(episodeId);
    this.turns.delete(episodeId);
    if (turns === undefined) return undefined;
    const tokens = turns.map((_, i) => i);
    return { tokens, mask: tokens.map(() => 1), logProbs: tokens.map(() => -1), windows: [], availableActions: turns };
  }
}

const env = getEnv('babyai');
const producerOf = (policy: StubAgent) => new LocalProducer({ env, policy, collect: { seed: 3, tasksPerStep: 3, groupSize: 2, concurrency: 4 } });

async function produce(producer: LocalProducer, groups: number[], step = 1): Promise<TrajectoryGroup[]> {
  const offered: TrajectoryGroup[] = [];
  await producer.produce({ step, horizon: 4, groups }, (g) => offered.push(g), new AbortController().signal);
  return offered;
}

describe('LocalProducer', () => {
  it('collects only the groups asked for, each whole, with the episodes they have in the whole step', async () => {
    const policy = new StubAgent();
    const all = await produce(producerOf(policy), [0, 1, 2]);
    const one = await produce(producerOf(new StubAgent()), [1]);
    expect(all.map((g) => g.index).sort()).toEqual([0, 1, 2]);
    expect(one).toHaveLength(1);
    const [group] = one;
    expect(group).toMatchObject({ step: 1, index: 1, horizon: 4, policyVersion: 0, producer: 'local' });
    expect(group!.episodes.map((e) => e.output.slot)).toEqual([2, 3]);
    expect(group!.results.map((r) => r.slot)).toEqual([2, 3]);
    const same = all.find((g) => g.index === 1)!;
    expect(group!.taskId).toBe(same.taskId);
    expect(group!.episodes.map((e) => [e.output.episodeId, e.output.reward, e.output.turns])).toEqual(
      same.episodes.map((e) => [e.output.episodeId, e.output.reward, e.output.turns]),
    );
    // The records came with the outputs, and the policy holds none after release.
    for (const e of group!.episodes) expect(e.record?.trajectory.tokens).toHaveLength(e.output.turns);
    expect(group!.episodes.every((e) => e.group === 1)).toBe(true);
    expect(policy.turns.size).toBe(0);
  });

  it('collects a group again (after a stale drop) with the same seeds under new episode ids', async () => {
    const producer = producerOf(new StubAgent());
    const [first] = await produce(producer, [1]);
    const [again] = await produce(producer, [1]);
    const ids = (g: TrajectoryGroup | undefined) => g!.episodes.map((e) => e.output.episodeId);
    expect(ids(first)).toEqual(['step-1-s2a0', 'step-1-s3a0']);
    expect(ids(again)).toEqual(['step-1-c1-s2a0', 'step-1-c1-s3a0']);
    const play = (g: TrajectoryGroup | undefined) => g!.episodes.map((e) => [e.output.slot, e.output.reward, e.output.trajectory.map((s) => s.action)]);
    expect(play(again)).toEqual(play(first));
  });

  it('applies staged weights when its next step starts, never under a running one', async () => {
    const policy = new StubAgent();
    const producer = producerOf(policy);
    const staged = (version: number) => ({ version, apply: () => { policy.version = version; } });
    producer.stage(staged(1));
    expect(producer.version).toBe(0);
    expect(producer.nextVersion).toBe(1);
    const offered: TrajectoryGroup[] = [];
    const running = producer.produce({ step: 2, horizon: 4, groups: [0, 1] }, (g) => offered.push(g), new AbortController().signal);
    await new Promise((resolve) => setImmediate(resolve));
    producer.stage(staged(2));
    await running;
    expect(offered.map((g) => g.policyVersion)).toEqual([1, 1]);
    expect(offered.flatMap((g) => g.episodes.map((e) => e.output.policyVersion))).toEqual(offered.flatMap((g) => g.episodes.map(() => 1)));
    const next = await produce(producer, [2], 2);
    expect(next[0]?.policyVersion).toBe(2);
  });

  it('offers no partial group when stopped', async () => {
    const producer = new LocalProducer({ env, policy: new StubAgent(5), collect: { seed: 3, tasksPerStep: 3, groupSize: 2, concurrency: 2 } });
    const stop = new AbortController();
    const offered: TrajectoryGroup[] = [];
    const running = producer.produce({ step: 1, horizon: 4, groups: [0, 1, 2] }, (g) => offered.push(g), stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 60));
    stop.abort(new Error('test stop'));
    await running;
    expect(offered.length).toBeLessThan(3);
    for (const g of offered) expect(new Set(g.episodes.filter((e) => e.output.outcome !== 'aborted').map((e) => e.output.slot)).size).toBe(2);
  });
});
