/**
 * Step 3 of a rollout: the run actor (machines/run.machine.ts) with its effects. Its launches
 * start once each of its steps is over (launch-queue.ts); ended episodes come back to it as
 * `EPISODE.DONE`; a launch that cannot start stops the run.
 */
import { createActor, type Actor } from 'xstate';
import { runMachine } from '../../machines/run.machine.ts';
import type { Policy } from '../../policy/policy.ts';
import { errorMessage } from '../../envs/error-message.ts';
import { crashedOutput } from './crashed-output.ts';
import type { EpisodeRunner } from './episode-runner.ts';
import type { LaunchQueue } from './launch-queue.ts';
import type { RolloutSettings } from './rollout-settings.ts';

export type RunActor = Actor<typeof runMachine>;

export interface RunActorOptions {
  readonly settings: RolloutSettings;
  /** The curriculum's horizon when the run is created. */
  readonly horizon: number;
  readonly launches: LaunchQueue;
  readonly episodes: EpisodeRunner;
  readonly policy: Policy;
}

export function createRunActor({ settings, horizon, launches, episodes, policy }: RunActorOptions): RunActor {
  const run = createActor(
    runMachine.provide({
      actions: {
        startEpisode: (_, launch) => launches.push(launch),
        stopEpisodes: (_, reason) => episodes.cancelAll(reason),
      },
    }),
    {
      input: {
        runId: settings.runId,
        seed: settings.seed,
        concurrency: settings.concurrency,
        horizon,
        maxRetries: settings.maxRetries,
        maxLostRetries: settings.maxLostRetries,
        slots: settings.slots,
      },
      clock: settings.clock,
    },
  );
  // The first observer, so the episodes start before anyone else sees the run's new snapshot.
  // Its error is `run()`'s to report.
  run.subscribe({ next: () => startLaunches(run, launches, episodes, policy), error: () => {} });
  episodes.onFinished((output) => run.send({ type: 'EPISODE.DONE', output }));
  return run;
}

/** Starts the episodes the run's last step asked for, in the order it asked. */
function startLaunches(run: RunActor, launches: LaunchQueue, episodes: EpisodeRunner, policy: Policy): void {
  launches.drain(
    (launch) => episodes.start(launch),
    (error, launch) => {
      // The run fails with the launch's error (LaunchQueue.failure); first it winds down: the
      // episodes already running are cancelled, and those that never started are reported done.
      run.send({ type: 'STOP', reason: `an episode could not start: ${errorMessage(error)}` });
      for (const unstarted of [launch, ...launches.takeAll()]) {
        run.send({ type: 'EPISODE.DONE', output: crashedOutput(unstarted, policy.version, error) });
      }
    },
  );
}
