/**
 * Starts the episodes the run machine launches and ends them: each episode gets an env slot and an
 * episode actor; its events go on the run's stream with their time; when it ends, its slot goes
 * back, the ledger (rollout buffer) records it and the run hears `EPISODE.DONE` through
 * `onFinished`. Keeps the run's tallies (env steps, aborts by reason) for the summary.
 */
import type { Actor } from 'xstate';
import type { Env } from '../../envs/contract.ts';
import type { EpisodeEmitted, EpisodeInput, EpisodeOutput } from '../../machines/episode.machine.ts';
import type { rolloutBufferMachine } from '../../machines/rollout-buffer.machine.ts';
import type { EpisodeLaunch } from '../../machines/run.machine.ts';
import type { Policy } from '../../policy/policy.ts';
import type { RunEvent } from '../../streams/events.ts';
import type { AgentActorRef } from '../agent.actor.ts';
import type { CallDeadlines } from '../call-deadlines.ts';
import type { RunClock } from '../clock.ts';
import { createEpisodeActor, episodeLogic, stampEpisodeEvent, type EpisodeActorRef, type EpisodeLogic } from '../episode.actor.ts';
import { crashedOutput } from './crashed-output.ts';
import type { EnvSlots } from './env-slots.ts';

export interface EpisodeRunnerOptions {
  readonly envs: EnvSlots;
  readonly agent: AgentActorRef;
  readonly policy: Policy;
  readonly buffer: Actor<typeof rolloutBufferMachine>;
  readonly deadlines: CallDeadlines;
  readonly clock: RunClock;
  /** The run's stream (a Subject): every episode event goes on it. */
  readonly events: { next(event: RunEvent): void };
  readonly envTimeoutMs: number;
  readonly agentTimeoutMs: number;
  readonly onEpisode?: ((output: EpisodeOutput, env: Env | undefined) => void) | undefined;
}

export class EpisodeRunner {
  /** Env steps of the run. */
  steps = 0;
  readonly abortReasons: Record<string, number> = {};
  readonly #options: EpisodeRunnerOptions;
  readonly #logic: EpisodeLogic;
  readonly #running = new Map<string, EpisodeActorRef>();
  #onFinished: (output: EpisodeOutput) => void = () => {};

  constructor(options: EpisodeRunnerOptions) {
    this.#options = options;
    const { envs, agent, deadlines } = options;
    this.#logic = episodeLogic({ envOf: (id) => envs.refOf(id), agent, deadlines });
  }

  /** Where each ended episode goes after its bookkeeping (the run actor). */
  onFinished(listener: (output: EpisodeOutput) => void): void {
    this.#onFinished = listener;
  }

  start(launch: EpisodeLaunch): void {
    const { envs, buffer, policy, clock } = this.#options;
    envs.acquire(launch.episodeId);
    const policyVersion = policy.version;
    const episode = createEpisodeActor(this.#logic, this.#input(launch, policyVersion), clock);
    this.#running.set(launch.episodeId, episode);
    episode.on('*', this.#onEpisodeEvent);
    episode.subscribe({
      complete: () => this.#finish(episode.getSnapshot().output as EpisodeOutput),
      // A bug in an effect must still end the episode exactly once, as aborted.
      error: (error) => this.#finish(crashedOutput(launch, policyVersion, error)),
    });
    buffer.send({ type: 'EPISODE.STARTED', episodeId: launch.episodeId, groupKey: launch.groupKey });
    this.#options.events.next({
      type: 'episode.started',
      t: clock.now(),
      episodeId: launch.episodeId,
      taskId: launch.taskId,
      slot: launch.slot,
      attempt: launch.attempt,
      maxTurns: launch.maxTurns,
      policyVersion,
    });
    episode.start();
    episode.send({ type: 'START' });
  }

  /** Aborts every running episode as `cancelled`. */
  cancelAll(reason: string): void {
    for (const episode of this.#running.values()) episode.send({ type: 'ABORT', reason: 'cancelled', error: reason });
  }

  #input(launch: EpisodeLaunch, policyVersion: number): EpisodeInput {
    return {
      episodeId: launch.episodeId,
      taskId: launch.taskId,
      slot: launch.slot,
      attempt: launch.attempt,
      seed: launch.seed,
      maxTurns: launch.maxTurns,
      policyVersion,
      envTimeoutMs: this.#options.envTimeoutMs,
      agentTimeoutMs: this.#options.agentTimeoutMs,
    };
  }

  // Shared by every episode: two calls per env step.
  readonly #onEpisodeEvent = (emitted: EpisodeEmitted): void => {
    if (emitted.type === 'env.stepped') this.steps += 1;
    this.#options.events.next(stampEpisodeEvent(emitted, this.#options.clock.now()));
  };

  #finish(output: EpisodeOutput): void {
    const { envs, agent, buffer, deadlines } = this.#options;
    this.#running.delete(output.episodeId);
    deadlines.disarm(output.episodeId);
    const envSlot = envs.release(output.episodeId, output.outcome === 'aborted');
    if (output.outcome === 'aborted') {
      const reason = output.abortReason ?? 'unknown';
      this.abortReasons[reason] = (this.abortReasons[reason] ?? 0) + 1;
    }
    agent.send({ type: 'RELEASE', episodeId: output.episodeId });
    buffer.send({ type: 'EPISODE.ENDED', output });
    // A rollout has no learner: its consumer is the summary, so groups are taken as they complete.
    const ready = buffer.getSnapshot().context.ready.length;
    if (ready > 0) buffer.send({ type: 'TAKE', count: ready });
    this.#options.events.next(finishedEvent(output, this.#options.clock.now()));
    this.#options.onEpisode?.(output, envSlot?.env);
    this.#onFinished(output);
  }
}

function finishedEvent(output: EpisodeOutput, t: number): RunEvent {
  return {
    type: 'episode.finished',
    t,
    episodeId: output.episodeId,
    taskId: output.taskId,
    slot: output.slot,
    attempt: output.attempt,
    outcome: output.outcome,
    reward: output.reward,
    turns: output.turns,
    maxTurns: output.maxTurns,
    policyVersion: output.policyVersion,
    ...(output.abortReason ? { abortReason: output.abortReason } : {}),
    ...(output.error ? { error: output.error } : {}),
    ...(output.exhausted !== undefined ? { exhausted: output.exhausted } : {}),
  };
}
