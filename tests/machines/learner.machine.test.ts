import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, initialTransition, transition } from 'xstate';
import { learnerMachine, type LearnerEmitted, type LearnerMetrics } from '../../machines/learner.machine.ts';

/** The machine with effects that record their calls and resolve at once (or fail on cue). */
function run(input: { completedSteps?: number; targetSteps: number; checkpointEvery?: number }, options: { failTrainAt?: number; stopWhilePublishing?: number } = {}) {
  const calls: string[] = [];
  let stop = () => {};
  const logic = learnerMachine.provide({
    actors: {
      collectRollouts: fromPromise<LearnerMetrics, { step: number }>(async ({ input: i }) => {
        calls.push(`collect ${i.step}`);
        return { successRate: 0.5 };
      }),
      trainPolicy: fromPromise<LearnerMetrics, { step: number; rollout: LearnerMetrics }>(async ({ input: i }) => {
        calls.push(`train ${i.step}`);
        if (i.step === options.failTrainAt) throw new Error('NaN loss');
        return { ...i.rollout, loss: i.step / 10 };
      }),
      publishWeights: fromPromise<void, { version: number }>(async ({ input: i }) => {
        calls.push(`publish v${i.version}`);
        if (i.version === options.stopWhilePublishing) stop();
      }),
      saveCheckpoint: fromPromise<string, { step: number; policyVersion: number }>(async ({ input: i }) => {
        calls.push(`checkpoint ${i.step}`);
        return `/ckpt/${i.step}`;
      }),
    },
  });
  const actor = createActor(logic, {
    input: { completedSteps: input.completedSteps ?? 0, targetSteps: input.targetSteps, policyVersion: input.completedSteps ?? 0, checkpointEvery: input.checkpointEvery ?? 0 },
  });
  stop = () => actor.send({ type: 'STOP' });
  const emitted: LearnerEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  return new Promise<{ calls: string[]; emitted: LearnerEmitted[]; snapshot: ReturnType<typeof actor.getSnapshot> }>((resolve) => {
    actor.subscribe({ complete: () => resolve({ calls, emitted, snapshot: actor.getSnapshot() }) });
    actor.start();
    actor.send({ type: 'START' });
  });
}

describe('learner machine', () => {
  it('is pure: START moves idle to collecting step 1 without running anything', () => {
    const [initial] = initialTransition(learnerMachine, { completedSteps: 0, targetSteps: 3, policyVersion: 0, checkpointEvery: 0 });
    expect(initial.value).toBe('idle');
    const [next, actions] = transition(learnerMachine, initial, { type: 'START' });
    expect(next.value).toBe('collecting');
    expect(actions.some((a) => a.type === 'xstate.spawnChild')).toBe(true);
    expect(next.context).toMatchObject({ step: 0, policyVersion: 0, lastMetrics: undefined });
    expect(JSON.parse(JSON.stringify(next.context))).toEqual({ step: 0, targetSteps: 3, policyVersion: 0, checkpointEvery: 0, lastCheckpointStep: 0, stopRequested: false });
  });

  it('runs collect → train → publish per step, checkpoints every K steps, and ends done', async () => {
    const { calls, emitted, snapshot } = await run({ targetSteps: 4, checkpointEvery: 2 });
    expect(calls).toEqual([
      'collect 1', 'train 1', 'publish v1',
      'collect 2', 'train 2', 'publish v2', 'checkpoint 2',
      'collect 3', 'train 3', 'publish v3',
      'collect 4', 'train 4', 'publish v4', 'checkpoint 4',
    ]);
    expect(snapshot.value).toBe('done');
    expect(snapshot.context).toMatchObject({ step: 4, policyVersion: 4, lastCheckpointStep: 4 });
    const stepped = emitted.filter((e) => e.type === 'learner.stepped');
    expect(stepped.map((e) => e.step)).toEqual([1, 2, 3, 4]);
    expect(stepped[2]).toMatchObject({ policyVersion: 3, metrics: { step: 3, successRate: 0.5, loss: 0.3 } });
    expect(emitted.filter((e) => e.type === 'checkpoint.saved')).toEqual([
      { type: 'checkpoint.saved', step: 2, path: '/ckpt/2' },
      { type: 'checkpoint.saved', step: 4, path: '/ckpt/4' },
    ]);
  });

  it('resumes from a completed step and counts to the total target', async () => {
    const { calls, snapshot } = await run({ completedSteps: 2, targetSteps: 3 });
    expect(calls).toEqual(['collect 3', 'train 3', 'publish v3']);
    expect(snapshot.context.step).toBe(3);
  });

  it('STOP finishes the running step, then stops before collecting again', async () => {
    const { calls, snapshot } = await run({ targetSteps: 10 }, { stopWhilePublishing: 2 });
    expect(calls).toEqual(['collect 1', 'train 1', 'publish v1', 'collect 2', 'train 2', 'publish v2']);
    expect(snapshot.value).toBe('stopped');
    expect(snapshot.context.step).toBe(2);
  });

  it('STOP while collecting ends at once: the step is not trained on', () => {
    const [initial] = initialTransition(learnerMachine, { completedSteps: 0, targetSteps: 3, policyVersion: 0, checkpointEvery: 0 });
    const [collecting] = transition(learnerMachine, initial, { type: 'START' });
    const [stopped] = transition(learnerMachine, collecting, { type: 'STOP' });
    expect(stopped.value).toBe('stopped');
    expect(stopped.context.step).toBe(0);
  });

  it('an effect error ends in failed with the message, not an exception', async () => {
    const { calls, snapshot } = await run({ targetSteps: 5 }, { failTrainAt: 2 });
    expect(calls).toEqual(['collect 1', 'train 1', 'publish v1', 'collect 2', 'train 2']);
    expect(snapshot.value).toBe('failed');
    expect(snapshot.context).toMatchObject({ step: 1, error: 'NaN loss' });
  });
});
