import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { runMachine, type EpisodeLaunch, type RunEventIn, type RunInput } from '../../machines/run.machine.ts';
import type { EpisodeOutcome } from '../../streams/events.ts';
import { emitted } from './emitted.ts';

const slots = Array.from({ length: 4 }, (_, slot) => ({ slot, taskId: `task-${slot}`, groupKey: `${slot}` }));
const input: RunInput = { runId: 'r', seed: 1, concurrency: 2, horizon: 5, maxRetries: 1, slots };

type Snapshot = ReturnType<typeof initialTransition<typeof runMachine>>[0];

function launches(actions: readonly { type: string; params?: unknown }[]): EpisodeLaunch[] {
  return actions.filter((action) => action.type === 'startEpisode').map((action) => action.params as EpisodeLaunch);
}

function output(launch: EpisodeLaunch, outcome: EpisodeOutcome): EpisodeOutput {
  return {
    episodeId: launch.episodeId,
    taskId: launch.taskId,
    slot: launch.slot,
    attempt: launch.attempt,
    outcome,
    reward: outcome === 'success' ? 1 : 0,
    turns: 1,
    maxTurns: launch.maxTurns,
    policyVersion: 0,
    firstObservation: '',
    trajectory: [],
  };
}

function send(snapshot: Snapshot, event: RunEventIn) {
  const [next, actions] = transition(runMachine, snapshot, event);
  return { snapshot: next, launched: launches(actions), emitted: emitted(actions) };
}

describe('run machine (pure transitions)', () => {
  it('starts at most `concurrency` episodes and refills as they finish', () => {
    const [snapshot, actions] = initialTransition(runMachine, input);
    const first = launches(actions);
    expect(first.map((launch) => launch.slot)).toEqual([0, 1]);
    const after = send(snapshot, { type: 'EPISODE.DONE', output: output(first[0] as EpisodeLaunch, 'success') });
    expect(after.launched.map((launch) => launch.slot)).toEqual([2]);
    expect(after.snapshot.context.runningCount).toBe(2);
  });

  it('starts a slot by moving the queue head, never copying the waiting slots', () => {
    const many = Array.from({ length: 1000 }, (_, slot) => ({ slot, taskId: `task-${slot}`, groupKey: `${slot}` }));
    const [snapshot, actions] = initialTransition(runMachine, { ...input, slots: many });
    const first = launches(actions);
    const after = send(snapshot, { type: 'EPISODE.DONE', output: output(first[0] as EpisodeLaunch, 'success') });
    expect(after.launched.map((launch) => launch.slot)).toEqual([2]);
    // The same array, read from a later head: starting an episode costs O(1), not O(waiting).
    expect(after.snapshot.context.queue).toBe(snapshot.context.queue);
    expect(after.snapshot.context.queueHead).toBe(3);
  });

  it('applies a horizon change to episodes that start after it, not to running ones', () => {
    const [snapshot, actions] = initialTransition(runMachine, input);
    const running = launches(actions);
    expect(running.map((launch) => launch.maxTurns)).toEqual([5, 5]);
    const changed = send(snapshot, { type: 'HORIZON.SET', horizon: 9 });
    expect(changed.launched).toEqual([]);
    // The running episodes were launched with 5 and keep it; the next launch takes 9.
    const next = send(changed.snapshot, { type: 'EPISODE.DONE', output: output(running[0] as EpisodeLaunch, 'failure') });
    expect(next.launched.map((launch) => [launch.slot, launch.maxTurns])).toEqual([[2, 9]]);
  });

  it('retries an aborted slot first, with the same seed, up to maxRetries', () => {
    const [snapshot, actions] = initialTransition(runMachine, input);
    const [first] = launches(actions) as [EpisodeLaunch];
    const retried = send(snapshot, { type: 'EPISODE.DONE', output: output(first, 'aborted') });
    const [retry] = retried.launched as [EpisodeLaunch];
    expect(retry).toMatchObject({ slot: 0, attempt: 1, seed: first.seed });
    expect(retry.episodeId).not.toBe(first.episodeId);
    expect(retried.emitted).toEqual([]);
    const givenUp = send(retried.snapshot, { type: 'EPISODE.DONE', output: output(retry, 'aborted') });
    expect(givenUp.emitted).toContainEqual(
      expect.objectContaining({ type: 'slot.settled', attempts: 2 }),
    );
    expect(givenUp.launched.map((launch) => launch.slot)).toEqual([2]);
  });

  it('finishes when every slot has settled, and ignores unknown episodes', () => {
    const [initial, actions] = initialTransition(runMachine, { ...input, concurrency: 4 });
    const all = launches(actions);
    let snapshot = send(initial, { type: 'EPISODE.DONE', output: { ...output(all[0] as EpisodeLaunch, 'success'), episodeId: 'stranger' } }).snapshot;
    expect(snapshot.context.settled).toBe(0);
    for (const launch of all) snapshot = send(snapshot, { type: 'EPISODE.DONE', output: output(launch, 'success') }).snapshot;
    expect(snapshot.status).toBe('done');
    expect(snapshot.output).toEqual({ settled: 4, launched: 4, stopped: false });
  });

  it('stops launching on STOP and asks to abort running episodes', () => {
    const [snapshot] = initialTransition(runMachine, input);
    const [stopped, actions] = transition(runMachine, snapshot, { type: 'STOP', reason: 'user' });
    expect(actions.map((action) => action.type)).toContain('stopEpisodes');
    expect(stopped.context.queue).toEqual([]);
  });
});
