/** Run events for the event server tests: a small run with every event type, lossy ones included. */
import type { EpisodeFinished, RolloutSummary, RunEvent } from '../../streams/events.ts';

export const finished = (i: number, error = ''): EpisodeFinished => ({
  type: 'episode.finished', t: i, episodeId: `e${i}`, taskId: `task-${i}`, slot: i, attempt: 0,
  outcome: i % 2 === 0 ? 'success' : 'failure', reward: i % 2 === 0 ? 1 : 0, turns: 3, maxTurns: 6, policyVersion: 0,
  ...(error ? { outcome: 'aborted', abortReason: 'env_lost', error } : {}),
});

export const acted = (i: number): RunEvent => ({ type: 'agent.acted', t: i, episodeId: `e${i}`, turn: 0, action: 'inc' });

export const runStarted = (episodes: number): RunEvent => ({
  type: 'run.started', t: 0, runId: 'r', env: 'counter', split: 'train', episodes, concurrency: 4, seed: 1, horizon: 6,
});

/** Episode `i`'s four events: started, acted, stepped, finished. */
export function episodeEvents(i: number): RunEvent[] {
  return [
    { type: 'episode.started', t: i, episodeId: `e${i}`, taskId: `task-${i}`, slot: i, attempt: 0, maxTurns: 6, policyVersion: 0 },
    acted(i),
    { type: 'env.stepped', t: i, episodeId: `e${i}`, turn: 0, reward: 0, terminated: false, truncated: false },
    finished(i),
  ];
}

export function runFinished(episodes: number): RunEvent {
  const summary = {
    env: 'counter', split: 'train', agent: 'oracle', seed: 1, slots: episodes, episodes, attempts: episodes, abortedAttempts: 0,
    abortReasons: {}, successRate: 0.5, abortedShare: 0, successRange: { low: 0.5, high: 0.5 },
    meanReward: 0.5, meanTurns: 3, outcomes: { success: 1, failure: 1, truncated: 0, aborted: 0 }, horizon: 6,
    wallSeconds: 1, stepsPerSecond: 6, results: [{ slot: 0, taskId: 'task-0', outcome: 'success', reward: 1, turns: 3, maxTurns: 6, attempts: 1 }],
  } as unknown as RolloutSummary; // the summary's fields are the outcome reporting's business, not the event server's
  return { type: 'run.finished', t: 99, runId: 'r', summary };
}

/** A whole run: run.started, a horizon change, `episodes` episodes, run.finished. */
export function runEvents(episodes: number): RunEvent[] {
  const events: RunEvent[] = [runStarted(episodes), { type: 'horizon.changed', t: 0, from: 6, to: 13, step: 100, reason: 'scaling' }];
  for (let i = 0; i < episodes; i++) events.push(...episodeEvents(i));
  events.push(runFinished(episodes));
  return events;
}
