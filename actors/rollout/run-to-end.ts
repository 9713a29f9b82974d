/**
 * The last step of a rollout: starts the run actor, and when it finishes summarizes the run,
 * announces it (`run.finished`), completes the event stream and stops every actor and env.
 */
import type { Subject } from 'rxjs';
import type { Actor } from 'xstate';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { rolloutBufferMachine } from '../../machines/rollout-buffer.machine.ts';
import type { Policy } from '../../policy/policy.ts';
import type { EpisodeResult, RolloutSummary, RunEvent } from '../../streams/events.ts';
import type { AgentActorRef } from '../agent.actor.ts';
import type { CallDeadlines } from '../call-deadlines.ts';
import type { CurriculumActorRef } from '../curriculum.actor.ts';
import { summarize } from '../summarize.ts';
import type { EnvSlots } from './env-slots.ts';
import type { EpisodeRunner } from './episode-runner.ts';
import type { LaunchQueue } from './launch-queue.ts';
import type { RolloutSettings } from './rollout-settings.ts';
import type { RunActor } from './run-actor.ts';

/** Every part of a rollout system, as its composition root wired them. */
export interface RolloutParts {
  readonly env: EnvDefinition;
  readonly settings: RolloutSettings;
  readonly events: Subject<RunEvent>;
  readonly envs: EnvSlots;
  readonly policy: Policy;
  readonly agent: AgentActorRef;
  readonly curriculum: CurriculumActorRef;
  readonly buffer: Actor<typeof rolloutBufferMachine>;
  readonly deadlines: CallDeadlines;
  readonly episodes: EpisodeRunner;
  readonly launches: LaunchQueue;
  readonly run: RunActor;
  /** Each slot's result, as the run settles it. */
  readonly settled: readonly EpisodeResult[];
}

export function runToEnd(parts: RolloutParts): Promise<RolloutSummary> {
  const { settings, events, run, deadlines, envs } = parts;
  return new Promise<RolloutSummary>((resolve, reject) => {
    const startedAt = settings.clock.now();
    events.next({
      type: 'run.started',
      t: startedAt,
      runId: settings.runId,
      env: parts.env.spec.id,
      split: settings.split,
      episodes: settings.slots.length,
      concurrency: settings.concurrency,
      seed: settings.seed,
      horizon: parts.curriculum.getSnapshot().context.horizon,
    });
    const fail = (error: unknown) => {
      deadlines.stop();
      events.error(error);
      envs.closeAll();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    run.subscribe({
      complete: () => {
        if (parts.launches.failure) return fail(parts.launches.failure);
        let summary: RolloutSummary;
        try {
          summary = rolloutSummary(parts, startedAt);
        } catch (error) {
          deadlines.stop();
          envs.closeAll();
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        deadlines.stop();
        events.next({ type: 'run.finished', t: settings.clock.now(), runId: settings.runId, summary });
        events.complete();
        shutDown(parts);
        resolve(summary);
      },
      error: fail,
    });
    run.start();
  });
}

function rolloutSummary(parts: RolloutParts, startedAt: number): RolloutSummary {
  const { settings } = parts;
  return summarize({
    env: parts.env.spec.id,
    split: settings.split,
    agent: parts.policy.name,
    seed: settings.seed,
    settled: parts.settled,
    attempts: parts.run.getSnapshot().context.launched,
    slots: settings.slots.length,
    abortReasons: parts.episodes.abortReasons,
    steps: parts.episodes.steps,
    horizon: parts.curriculum.getSnapshot().context.horizon,
    wallSeconds: (settings.clock.now() - startedAt) / 1000,
    ledger: parts.buffer.getSnapshot().context.counts,
  });
}

function shutDown(parts: RolloutParts): void {
  parts.agent.stop();
  parts.curriculum.stop();
  parts.buffer.stop();
  parts.envs.closeAll();
}
