/** The output of an episode that could not run to its end: its actor failed, or it never started. */
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import type { EpisodeLaunch } from '../../machines/run.machine.ts';
import { errorMessage } from '../../envs/error-message.ts';

export function crashedOutput(launch: EpisodeLaunch, policyVersion: number, error: unknown): EpisodeOutput {
  return {
    episodeId: launch.episodeId,
    taskId: launch.taskId,
    slot: launch.slot,
    attempt: launch.attempt,
    outcome: 'aborted',
    reward: 0,
    turns: 0,
    maxTurns: launch.maxTurns,
    policyVersion,
    firstObservation: '',
    trajectory: [],
    abortReason: 'env_error',
    error: `episode actor failed: ${errorMessage(error)}`,
  };
}
