/**
 * Issue 24: training pauses, not degrades, when no env server is reachable. The env server is a
 * real process, SIGKILLed during the last step's rollout (at its first env step, while the
 * step's episodes are under way on it; the step that is the first to learn something) and restarted on its port once the run reports the pause; the run then resumes and ends with the same per-step metrics as a run
 * that was never disturbed (aborted episodes are never trained on, and a step's aborted slots are
 * played again with their own seeds).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTrainingSystem, type TrainingOptions } from '../../actors/training-system.ts';
import { TIMING_FIELDS } from '../../actors/training/metrics.ts';
import { ServerFleet } from '../../bench/chaos-fleet.ts';
import type { Env } from '../../envs/contract.ts';
import { poolEnvDefinition, type PoolEnvDefinition } from '../../transport/remote/pool-definition.ts';
import type { PooledEnv } from '../../transport/remote/pooled-env.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';

// The smallest training of the training tests (training-resume.test.ts): 2 tasks × G=2, a one-layer model.
const base: Omit<TrainingOptions, 'env' | 'steps'> = {
  backend: 'wasm', learnerThreads: 1, tasksPerStep: 2, groupSize: 2, schedule: 'fixed:4', seed: 5,
  corpusTasks: 8, evalEpisodes: 0, epochs: 2, minibatch: 4,
  model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
};

let fleet: ServerFleet | undefined;
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});

const withoutTiming = (metrics: Readonly<Record<string, number>>) =>
  Object.fromEntries(Object.entries(metrics).filter(([key]) => !(TIMING_FIELDS as readonly string[]).includes(key)));

describe('training on a pool of env servers', () => {
  it('pauses while no server is reachable, resumes when one is back, and trains on whole batches only', async () => {
    const undisturbed: TrainingEvent[] = [];
    const reference = createTrainingSystem({ ...base, env: 'babyai', steps: 3 });
    reference.events.subscribe((e) => undisturbed.push(e));
    await reference.run();

    fleet = await ServerFleet.start(1);
    const servers = fleet;
    // A short wait for a server, so the killed step drains its slots as aborted and the learner pauses.
    const env = await poolEnvDefinition(servers.urls, 'babyai', { serverWaitMs: 100, backoff: { initialMs: 20, maxMs: 200 } });
    try {
      // The first env step of learner step 3 kills the server first: the step's episodes die mid-flight.
      let armed = false;
      let killed = false;
      const killing: PoolEnvDefinition = {
        ...env,
        make: () => {
          const inner = env.make() as PooledEnv;
          const step: Env['step'] = async (action) => {
            if (armed && !killed) {
              killed = true;
              await servers.kill(0);
            }
            return inner.step(action);
          };
          // The pool's oracle (the tokenizer's corpus plays it) asks the env for its server-side oracle.
          return { spec: inner.spec, reset: (options) => inner.reset(options), step, close: () => inner.close(), oracleAction: () => inner.oracleAction() };
        },
      };
      const training = createTrainingSystem({ ...base, env: killing, steps: 3 });
      const seen: TrainingEvent[] = [];
      let restarted: Promise<void> | undefined;
      training.events.subscribe((event) => {
        seen.push(event);
        if (event.type === 'episode.started' && event.episodeId.startsWith('step-3-')) armed = true;
        if (event.type === 'training.paused') restarted = servers.restart(0);
      });
      const summary = await training.run();
      await restarted;
      expect(summary).toMatchObject({ status: 'done', steps: 3 });

      const paused = seen.filter((e) => e.type === 'training.paused');
      const resumed = seen.filter((e) => e.type === 'training.resumed');
      expect(paused).toHaveLength(1);
      expect(paused[0]).toMatchObject({ step: 3, reason: expect.stringMatching(/no env server reachable/) });
      expect(resumed).toEqual([expect.objectContaining({ step: 3, slots: paused[0]?.type === 'training.paused' ? paused[0].slots : -1 })]);
      // The pause came between the aborted attempts and the step's training, never after it.
      const order = seen.map((e) => e.type).filter((t) => t === 'training.paused' || t === 'training.resumed' || t === 'learner.stepped');
      expect(order).toEqual(['learner.stepped', 'learner.stepped', 'training.paused', 'training.resumed', 'learner.stepped']);
      expect(seen.some((e) => e.type === 'episode.finished' && e.outcome === 'aborted' && e.abortReason === 'env_lost')).toBe(true);

      // Every step trained on a whole batch, the same as the undisturbed run's, metric for metric.
      const stepped = (events: TrainingEvent[]) => events.flatMap((e) => (e.type === 'learner.stepped' ? [withoutTiming(e.metrics)] : []));
      const metrics = stepped(seen);
      expect(metrics.map((m) => [m.episodes, m.aborted])).toEqual([[4, 0], [4, 0], [4, 0]]);
      expect(metrics[2]?.updates).toBeGreaterThan(0); // the disturbed step is one that learns
      expect(metrics).toEqual(stepped(undisturbed));
    } finally {
      await env.close();
    }
  }, 120_000);
});
