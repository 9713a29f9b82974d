// Issue 37: asynchronous training in one process. With maxStaleness K the local producer
// collects ahead of the learner on the weights it holds; the run trains the same steps, each
// step's groups exactly once, none staler than K. With K = 0 the run is today's, metric for metric.
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../actors/clock.ts';
import { trainRun } from '../../../actors/training/train-run.ts';
import { TIMING_FIELDS } from '../../../actors/training/metrics.ts';
import { configOptionsOf, type TrainingOptions } from '../../../actors/training/training-options.ts';
import { TrainingStop } from '../../../actors/training/training-stop.ts';
import { getEnv } from '../../../envs/index.ts';
import { resolveConfig, type TrainingConfig } from '../../../learner/training-config.ts';
import type { BufferChanged, LearnerStepped, TrainingEvent } from '../../../streams/training-events.ts';

const options: TrainingOptions = {
  env: 'babyai', backend: 'wasm', steps: 4, tasksPerStep: 2, groupSize: 2, schedule: 'fixed:3', seed: 7,
  corpusTasks: 8, evalEpisodes: 0, epochs: 1, minibatch: 4,
  model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
};

async function run(async: TrainingConfig['async']): Promise<TrainingEvent[]> {
  const env = getEnv('babyai');
  const configOptions = configOptionsOf(options);
  const config = resolveConfig(env.spec.id, configOptions);
  const events = new Subject<TrainingEvent>();
  const seen: TrainingEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const summary = await trainRun({
    options, env, configOptions, freshConfig: async === undefined ? config : { ...config, async }, clock: systemClock, events, stop: new TrainingStop(),
  });
  expect(summary).toMatchObject({ status: 'done', steps: 4 });
  return seen;
}

const CORRECTION = { importanceWeight: 'importanceWeight', importanceTruncated: 'importanceTruncated' } as const;
const stepped = (events: readonly TrainingEvent[]) => events.filter((e): e is LearnerStepped => e.type === 'learner.stepped');
const untimed = (m: Readonly<Record<string, number>>) => Object.fromEntries(Object.entries(m).filter(([k]) => !(TIMING_FIELDS as readonly string[]).includes(k)));

describe('asynchronous training in one process (issue 37)', () => {
  it('K = 1 trains every step once on all its groups, none staler than 1, and collects ahead of the learner', async () => {
    const events = await run({ maxStaleness: 1, importanceCap: 2 });
    expect(stepped(events).map((e) => e.step)).toEqual([1, 2, 3, 4]);
    const buffer = events.filter((e): e is BufferChanged => e.type === 'buffer.changed');
    const last = buffer.at(-1)!;
    expect(last).toMatchObject({ trained: 8, droppedStale: 0, droppedDuplicate: 0, capacity: 4, takenThrough: 4 });
    const histogram = Object.entries(last.stalenessHistogram);
    expect(histogram.every(([staleness]) => Number(staleness) <= 1)).toBe(true);
    expect(histogram.reduce((a, [, n]) => a + n, 0)).toBe(8);
    // Every step's episodes sampled with one version, at most 1 behind the learner's when it trained on them.
    const versions = new Map<string, Set<number>>();
    for (const e of events) {
      if (e.type !== 'episode.started') continue;
      const step = e.episodeId.split('-')[1]!;
      versions.set(step, (versions.get(step) ?? new Set()).add(e.policyVersion));
    }
    for (const [step, set] of versions) {
      expect(set.size).toBe(1);
      expect(Number(step) - 1 - [...set][0]!).toBeLessThanOrEqual(1);
    }
    // It did run ahead: some step was collected with weights older than the step before's.
    expect([...versions].some(([step, set]) => Number(step) - 1 - [...set][0]! === 1)).toBe(true);
  });

  it('K = 0 is synchronous training, metric for metric', async () => {
    const [sync, k0] = [await run(undefined), await run({ maxStaleness: 0, importanceCap: 2 })];
    // An asynchronous run reports its behaviour correction (learner/behaviour-correction.ts): with
    // K = 0 no row is stale, so every weight is 1 and none truncated; the rest is the synchronous run's.
    const { importanceWeight, importanceTruncated } = CORRECTION;
    // (A step without an update reports none.)
    const corrected = stepped(k0).filter((e) => importanceWeight in e.metrics);
    expect(corrected.length).toBeGreaterThan(0);
    for (const e of corrected) expect([e.metrics[importanceWeight], e.metrics[importanceTruncated]]).toEqual([1, 0]);
    const uncorrected = (m: Readonly<Record<string, number>>) => Object.fromEntries(Object.entries(untimed(m)).filter(([k]) => k !== importanceWeight && k !== importanceTruncated));
    expect(stepped(k0).map((e) => uncorrected(e.metrics))).toEqual(stepped(sync).map((e) => untimed(e.metrics)));
    const buffer = k0.filter((e): e is BufferChanged => e.type === 'buffer.changed').at(-1);
    expect(buffer?.stalenessHistogram).toEqual({ '0': 8 });
  });
});
