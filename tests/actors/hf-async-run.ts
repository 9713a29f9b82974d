// Issue 37: a Hugging Face model trained asynchronously in one process (train --policy hf:DIR
// --async --max-staleness 1) on the tiny chat fixture, and what every such run must show. The
// local producer collects ahead on the agent's own copy of the weights; the run trains every step
// once on all its groups, none staler than 1, and stale steps get the behaviour correction.
import path from 'node:path';
import { Subject } from 'rxjs';
import { expect } from 'vitest';
import { systemClock } from '../../actors/clock.ts';
import { trainRun } from '../../actors/training/train-run.ts';
import { configOptionsOf, type TrainingOptions } from '../../actors/training/training-options.ts';
import { TrainingStop } from '../../actors/training/training-stop.ts';
import { getEnv } from '../../envs/index.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import type { BufferChanged, LearnerStepped, TrainingEvent } from '../../streams/training-events.ts';

const MODEL = path.resolve('tests/fixtures/hf/qwen2-tiny-chat');

/** A K = 1 run of `steps` steps of one group of two one-turn episodes each. */
export async function runHfAsync(mode: 'lora' | 'full', algo: string, steps: number): Promise<TrainingEvent[]> {
  const options: TrainingOptions = {
    env: 'babyai', backend: 'wasm', algo, steps, tasksPerStep: 1, groupSize: 2, schedule: 'fixed:1', seed: 3, lr: 1e-2,
    evalEpisodes: 0, minibatch: 2, hf: { model: MODEL, maxNewTokens: 8, mode, lora: { r: 2 } },
  };
  const env = getEnv('babyai');
  const configOptions = configOptionsOf(options);
  const config = resolveConfig(env.spec.id, configOptions);
  const events = new Subject<TrainingEvent>();
  const seen: TrainingEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const summary = await trainRun({
    options, env, configOptions, freshConfig: { ...config, async: { maxStaleness: 1, importanceCap: 2 } },
    clock: systemClock, events, stop: new TrainingStop(),
  });
  expect(summary).toMatchObject({ status: 'done', steps });
  return seen;
}

const stepped = (events: readonly TrainingEvent[]) => events.filter((e): e is LearnerStepped => e.type === 'learner.stepped');

/** Per step (from the episode ids `step-N-…`): the policy versions its episodes were sampled with. */
function versionsByStep(events: readonly TrainingEvent[]): Map<number, Set<number>> {
  const versions = new Map<number, Set<number>>();
  for (const e of events) {
    if (e.type !== 'episode.started') continue;
    const step = Number(e.episodeId.split('-')[1]);
    versions.set(step, (versions.get(step) ?? new Set()).add(e.policyVersion));
  }
  return versions;
}

export function expectAsyncRun(events: readonly TrainingEvent[], steps: number): void {
  const all = Array.from({ length: steps }, (_, i) => i + 1);
  expect(stepped(events).map((e) => e.step)).toEqual(all);
  // Every group (one a step) trained exactly once, none dropped, none staler than 1.
  const last = events.filter((e): e is BufferChanged => e.type === 'buffer.changed').at(-1)!;
  expect(last).toMatchObject({ trained: steps, droppedStale: 0, droppedDuplicate: 0, takenThrough: steps });
  const histogram = Object.entries(last.stalenessHistogram);
  expect(histogram.every(([staleness]) => Number(staleness) <= 1)).toBe(true);
  expect(histogram.reduce((a, [, n]) => a + n, 0)).toBe(steps);
  // Each step sampled with one version (weights change only between steps), at most 1 behind.
  const versions = versionsByStep(events);
  expect([...versions.keys()].sort()).toEqual(all);
  for (const [step, set] of versions) {
    expect(set.size, `step ${step} sampled with one version`).toBe(1);
    expect(step - 1 - [...set][0]!).toBeLessThanOrEqual(1);
  }
  // It ran ahead: some step was sampled by weights one version behind the learner's, and a later
  // one with a version published and applied between steps.
  expect([...versions].some(([step, set]) => step - 1 - [...set][0]! === 1)).toBe(true);
  expect([...versions.values()].some((set) => [...set][0]! > 0)).toBe(true);
  // The learner updated every step, and corrected stale rows: π_prox ≠ π_behav once weights moved.
  expect(stepped(events).every((e) => (e.metrics.updates ?? 0) > 0)).toBe(true);
  const weights = stepped(events).map((e) => e.metrics.importanceWeight);
  expect(weights.every((w) => w !== undefined && w > 0 && Number.isFinite(w))).toBe(true);
  expect(weights.some((w) => w !== 1)).toBe(true);
}
