/**
 * The composition root for rollouts: env slots, the agent actor, the curriculum, the rollout
 * buffer (ledger) and the run actor, wired together from the steps in actors/rollout/.
 */
import { Subject } from 'rxjs';
import { createActor } from 'xstate';
import { rolloutBufferMachine } from '../machines/rollout-buffer.machine.ts';
import type { EpisodeResult, RunEvent } from '../streams/events.ts';
import { createAgentActor } from './agent.actor.ts';
import { CallDeadlines, sweepPeriodMs } from './call-deadlines.ts';
import { createCurriculumActor } from './curriculum.actor.ts';
import { EnvSlots } from './rollout/env-slots.ts';
import { EpisodeRunner } from './rollout/episode-runner.ts';
import { LaunchQueue } from './rollout/launch-queue.ts';
import type { RolloutSystem, RolloutSystemOptions } from './rollout/rollout-options.ts';
import { rolloutPolicy } from './rollout/rollout-policy.ts';
import { rolloutSettings } from './rollout/rollout-settings.ts';
import { createRunActor } from './rollout/run-actor.ts';
import { runToEnd, type RolloutParts } from './rollout/run-to-end.ts';
import { episodeResult } from './summarize.ts';

export type { AgentSpec, RolloutSlot, RolloutSystem, RolloutSystemOptions } from './rollout/rollout-options.ts';
export { resolveSchedule } from './rollout/rollout-settings.ts';

/**
 * Runs an agent on an env's tasks as actors: one episode machine per task slot, at most
 * `concurrency` at a time, with the horizon the curriculum sets, and a summary at the end.
 * Nothing runs until `run()`; subscribe to `events` first to see every event of the run.
 * Throws at once on a bad option (no tasks, a bad schedule, `'oracle'` on an env without one).
 *
 * @example
 * const system = createRolloutSystem({ env: getEnv('babyai'), agent: 'random', episodes: 16, seed: 1 });
 * system.events.pipe(filter((e) => e.type === 'episode.finished')).subscribe(console.log);
 * const summary = await system.run();
 */
export function createRolloutSystem(options: RolloutSystemOptions): RolloutSystem {
  const settings = rolloutSettings(options);
  const { clock } = settings;
  const events = new Subject<RunEvent>();
  const envs = new EnvSlots(options.env);
  const policy = rolloutPolicy({ env: options.env, agent: options.agent, oracleOf: (id) => envs.oracleOf(id), wrapPolicy: options.wrapPolicy });
  const agent = createAgentActor({ policy, ...(options.onRelease ? { onRelease: options.onRelease } : {}) });
  const curriculum = createCurriculumActor({ schedule: settings.schedule });
  const buffer = createActor(rolloutBufferMachine, { input: { groupSize: 1, capacity: settings.slots.length } }).start();
  const deadlines = new CallDeadlines(clock, sweepPeriodMs(settings.envTimeoutMs, settings.agentTimeoutMs));
  const episodes = new EpisodeRunner({
    envs, agent, policy, buffer, deadlines, clock, events,
    envTimeoutMs: settings.envTimeoutMs, agentTimeoutMs: settings.agentTimeoutMs, onEpisode: options.onEpisode,
  });
  const launches = new LaunchQueue();
  const run = createRunActor({ settings, horizon: curriculum.getSnapshot().context.horizon, launches, episodes, policy });
  curriculum.on('horizon.changed', (change) => {
    run.send({ type: 'HORIZON.SET', horizon: change.to });
    events.next({ ...change, t: clock.now() });
  });
  const settled: EpisodeResult[] = [];
  run.on('slot.settled', (e) => settled.push(episodeResult(e.output, e.attempts)));
  const parts: RolloutParts = { env: options.env, settings, events, envs, policy, agent, curriculum, buffer, deadlines, episodes, launches, run, settled };
  let started: ReturnType<RolloutSystem['run']> | undefined;
  return {
    events: events.asObservable(),
    curriculum,
    stop: (reason = 'stopped by the caller') => run.send({ type: 'STOP', reason }),
    run: () => (started ??= runToEnd(parts)),
  };
}
