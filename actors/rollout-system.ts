/**
 * The composition root for rollouts: env slots, the agent actor, the curriculum, the rollout
 * buffer (ledger) and the run actor, wired together. Nothing runs until `run()`; subscribe to
 * `events` first to see every event of the run.
 *
 * @example
 * const system = createRolloutSystem({ env: getEnv('babyai'), agent: 'random', episodes: 16, seed: 1 });
 * system.events.pipe(filter((e) => e.type === 'episode.finished')).subscribe(console.log);
 * const summary = await system.run();
 */
import { Subject, type Observable } from 'rxjs';
import { createActor } from 'xstate';
import type { Env, EnvDefinition, Split } from '../envs/contract.ts';
import type { EpisodeEmitted, EpisodeInput, EpisodeOutput } from '../machines/episode.machine.ts';
import { rolloutBufferMachine } from '../machines/rollout-buffer.machine.ts';
import { runMachine, type EpisodeLaunch, type SlotSpec } from '../machines/run.machine.ts';
import { parseSchedule, type Schedule } from '../machines/schedule.ts';
import { OraclePolicy } from '../policy/oracle-policy.ts';
import type { Policy } from '../policy/policy.ts';
import { RandomPolicy } from '../policy/random-policy.ts';
import type { EpisodeResult, RolloutSummary, RunEvent } from '../streams/events.ts';
import { errorMessage } from './abort-reason.ts';
import { createAgentActor } from './agent.actor.ts';
import { CallDeadlines, sweepPeriodMs } from './call-deadlines.ts';
import { systemClock, type RunClock } from './clock.ts';
import { createCurriculumActor, type CurriculumActorRef } from './curriculum.actor.ts';
import { EnvPool, type EnvSlot } from './env-pool.ts';
import { createEpisodeActor, episodeLogic, stampEpisodeEvent, type EpisodeActorRef } from './episode.actor.ts';
import { episodeResult, summarize } from './summarize.ts';

export type AgentSpec = Policy | 'random' | 'oracle';

/** One task slot to run, named by a caller's key (see `RolloutSystemOptions.slots`). */
export interface RolloutSlot {
  readonly taskId: string;
  /**
   * The slot number: a non-negative integer, unique in the run. The episode's seed is derived from
   * (run seed, key) and its id is `<runId>-s<key>a<attempt>`, so the same key replays the same
   * episode whatever else the run holds.
   */
  readonly key: number;
}

export interface RolloutSystemOptions {
  readonly env: EnvDefinition;
  readonly agent: AgentSpec;
  /** Which split's tasks to run. Default `test`. */
  readonly split?: Split;
  /** Task slots to run; default the whole split (cycled when larger than the split). */
  readonly episodes?: number;
  /**
   * Exactly these slots instead of `episodes`: a resumed evaluation runs only what is missing,
   * and every slot keeps the seed and episode id it has in the full run.
   */
  readonly slots?: readonly RolloutSlot[];
  /** Episodes running at once. Default 16. */
  readonly concurrency?: number;
  /** Horizon schedule (`fixed:N`, `scaling:[…]@Δ`); default `fixed:<env default horizon>`. */
  readonly schedule?: Schedule | string;
  readonly seed?: number;
  /** Retries of a slot whose episode was aborted (on a fresh env slot). Default 1. */
  readonly maxRetries?: number;
  /**
   * Further retries of a slot whose episodes were aborted because their env server was lost
   * (`env_lost`), on top of `maxRetries`: with a pool of servers the retry runs on a live one
   * (transport/remote/ws-pool.ts), so a server dying costs no slot while another is up. Default 10.
   */
  readonly maxLostRetries?: number;
  /** Deadline of each env call (reset, step). Default 30 s. */
  readonly envTimeoutMs?: number;
  /** Deadline of each agent decision. Default 120 s. */
  readonly agentTimeoutMs?: number;
  readonly clock?: RunClock;
  readonly runId?: string;
  /**
   * Receives every finished episode (aborted attempts too), with its trajectory, and the env
   * instance it ran on (already given back to the pool: read from it now, synchronously).
   */
  readonly onEpisode?: (output: EpisodeOutput, env: Env | undefined) => void;
  /**
   * Wraps the policy the agent actor calls (after 'random' / 'oracle' are resolved), e.g. to
   * record each turn's request (demos/recording-policy.ts).
   */
  readonly wrapPolicy?: (policy: Policy) => Policy;
}

export interface RolloutSystem {
  readonly events: Observable<RunEvent>;
  /** Send `{ type: 'LEARNER.STEPPED', step }` to move the schedule; new episodes take the new horizon. */
  readonly curriculum: CurriculumActorRef;
  run(): Promise<RolloutSummary>;
  /** Stops starting episodes and aborts running ones as `cancelled`; `run()` then resolves. */
  stop(reason?: string): void;
}

function crashedOutput(launch: EpisodeLaunch, policyVersion: number, error: unknown): EpisodeOutput {
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

function cycledSlots(tasks: readonly string[], episodes: number): SlotSpec[] {
  if (!Number.isInteger(episodes) || episodes < 1) throw new Error(`episodes must be a positive integer, got ${episodes}`);
  return Array.from({ length: episodes }, (_, slot) => ({ slot, taskId: tasks[slot % tasks.length] as string, groupKey: `${slot}` }));
}

function explicitSlots(given: readonly RolloutSlot[]): SlotSpec[] {
  if (given.length === 0) throw new Error('slots must name at least one slot');
  const keys = new Set<number>();
  return given.map(({ taskId, key }) => {
    if (!(Number.isSafeInteger(key) && key >= 0)) throw new Error(`slot key must be a non-negative integer, got ${key}`);
    if (keys.has(key)) throw new Error(`slot key ${key} is given twice`);
    keys.add(key);
    return { slot: key, taskId, groupKey: `${key}` };
  });
}

export function resolveSchedule(schedule: Schedule | string | undefined, fallbackHorizon: number): Schedule {
  if (schedule === undefined) return { kind: 'fixed', horizon: fallbackHorizon };
  if (typeof schedule !== 'string') return schedule;
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

export function createRolloutSystem(options: RolloutSystemOptions): RolloutSystem {
  const { env: definition } = options;
  const split = options.split ?? 'test';
  const tasks = definition.tasks(split);
  if (tasks.length === 0) throw new Error(`env "${definition.spec.id}" has no ${split} tasks`);
  if (options.slots !== undefined && options.episodes !== undefined) throw new Error('give episodes or slots, not both');
  const slots = options.slots ? explicitSlots(options.slots) : cycledSlots(tasks, options.episodes ?? tasks.length);
  const episodes = slots.length;
  const concurrency = options.concurrency ?? 16;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  const schedule = resolveSchedule(options.schedule, definition.spec.defaultHorizon);
  const seed = options.seed ?? 0;
  const clock = options.clock ?? systemClock;
  const runId = options.runId ?? `run-${seed}`;
  const envTimeoutMs = options.envTimeoutMs ?? 30_000;
  const agentTimeoutMs = options.agentTimeoutMs ?? 120_000;
  const events = new Subject<RunEvent>();

  const pool = new EnvPool(definition);
  const slotOf = new Map<string, EnvSlot>();
  const running = new Map<string, EpisodeActorRef>();
  const resolved: Policy =
    options.agent === 'random'
      ? new RandomPolicy()
      : options.agent === 'oracle'
        ? new OraclePolicy((episodeId) => slotOf.get(episodeId)?.oracle)
        : options.agent;
  if (options.agent === 'oracle' && !definition.oracle) throw new Error(`env "${definition.spec.id}" has no oracle`);
  const policy = options.wrapPolicy ? options.wrapPolicy(resolved) : resolved;

  const agent = createAgentActor({ policy });
  const curriculum = createCurriculumActor({ schedule });
  const buffer = createActor(rolloutBufferMachine, { input: { groupSize: 1, capacity: episodes } }).start();
  const deadlines = new CallDeadlines(clock, sweepPeriodMs(envTimeoutMs, agentTimeoutMs));
  const logic = episodeLogic({ envOf: (id) => (slotOf.get(id) as EnvSlot).ref, agent, deadlines });
  const settled: EpisodeResult[] = [];
  const abortReasons: Record<string, number> = {};
  let steps = 0;
  // Shared by every episode: two calls per env step.
  const onEpisodeEvent = (emitted: EpisodeEmitted) => {
    if (emitted.type === 'env.stepped') steps += 1;
    events.next(stampEpisodeEvent(emitted, clock.now()));
  };

  const launches: EpisodeLaunch[] = [];
  let launchFailure: Error | undefined;
  const run = createActor(
    runMachine.provide({
      actions: {
        // Only noted here: the episodes start once the run's step is over (`launchQueued`, below).
        // Creating and driving an actor inside another actor's action runs its transitions while
        // xstate marks a custom action as executing, and xstate's dev build then warns about every
        // `assign` they make ("Custom actions should not call `assign()` directly").
        startEpisode: (_, launch) => {
          launches.push(launch);
        },
        stopEpisodes: (_, reason) => {
          for (const episode of running.values()) episode.send({ type: 'ABORT', reason: 'cancelled', error: reason });
        },
      },
    }),
    {
      input: {
        runId,
        seed,
        concurrency,
        horizon: curriculum.getSnapshot().context.horizon,
        maxRetries: options.maxRetries ?? 1,
        maxLostRetries: options.maxLostRetries ?? 10,
        slots,
      },
      clock,
    },
  );

  /** Starts the episodes the run's last step asked for, in the order it asked. */
  function launchQueued(): void {
    for (let launch = launches.shift(); launch !== undefined; launch = launches.shift()) {
      try {
        startEpisode(launch);
      } catch (error) {
        // E.g. the env's `make()` threw. The run fails with that error, as it did when this ran
        // inside the run's action; first it winds down: the episodes already running are
        // cancelled, and those that never started are reported done.
        launchFailure ??= error instanceof Error ? error : new Error(String(error));
        run.send({ type: 'STOP', reason: `an episode could not start: ${errorMessage(error)}` });
        for (const unstarted of [launch, ...launches.splice(0)]) {
          run.send({ type: 'EPISODE.DONE', output: crashedOutput(unstarted, policy.version, error) });
        }
      }
    }
  }

  function startEpisode(launch: EpisodeLaunch): void {
    const envSlot = pool.acquire();
    slotOf.set(launch.episodeId, envSlot);
    const policyVersion = policy.version;
    const input: EpisodeInput = {
      episodeId: launch.episodeId,
      taskId: launch.taskId,
      slot: launch.slot,
      attempt: launch.attempt,
      seed: launch.seed,
      maxTurns: launch.maxTurns,
      policyVersion,
      envTimeoutMs,
      agentTimeoutMs,
    };
    const episode = createEpisodeActor(logic, input, clock);
    running.set(launch.episodeId, episode);
    episode.on('*', onEpisodeEvent);
    episode.subscribe({
      complete: () => finishEpisode(episode.getSnapshot().output as EpisodeOutput),
      // A bug in an effect must still end the episode exactly once, as aborted.
      error: (error) => finishEpisode(crashedOutput(launch, policyVersion, error)),
    });
    buffer.send({ type: 'EPISODE.STARTED', episodeId: launch.episodeId, groupKey: launch.groupKey });
    events.next({
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

  function finishEpisode(output: EpisodeOutput): void {
    const envSlot = slotOf.get(output.episodeId);
    slotOf.delete(output.episodeId);
    running.delete(output.episodeId);
    deadlines.disarm(output.episodeId);
    if (envSlot) pool.release(envSlot, output.outcome === 'aborted');
    if (output.outcome === 'aborted') {
      const reason = output.abortReason ?? 'unknown';
      abortReasons[reason] = (abortReasons[reason] ?? 0) + 1;
    }
    agent.send({ type: 'RELEASE', episodeId: output.episodeId });
    buffer.send({ type: 'EPISODE.ENDED', output });
    // A rollout has no learner: its consumer is the summary, so groups are taken as they complete.
    const ready = buffer.getSnapshot().context.ready.length;
    if (ready > 0) buffer.send({ type: 'TAKE', count: ready });
    events.next({
      type: 'episode.finished',
      t: clock.now(),
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
    });
    options.onEpisode?.(output, envSlot?.env);
    run.send({ type: 'EPISODE.DONE', output });
  }

  // The first observer, so the episodes start before anyone else sees the run's new snapshot,
  // just as they did when `startEpisode` started them itself.
  // Its error is `run()`'s to report.
  run.subscribe({ next: launchQueued, error: () => {} });
  curriculum.on('horizon.changed', (change) => {
    run.send({ type: 'HORIZON.SET', horizon: change.to });
    events.next({ ...change, t: clock.now() });
  });
  run.on('slot.settled', (e) => settled.push(episodeResult(e.output, e.attempts)));

  let started: Promise<RolloutSummary> | undefined;
  return {
    events: events.asObservable(),
    curriculum,
    stop: (reason = 'stopped by the caller') => run.send({ type: 'STOP', reason }),
    run: () => {
      started ??= new Promise<RolloutSummary>((resolve, reject) => {
        const startedAt = clock.now();
        events.next({
          type: 'run.started',
          t: startedAt,
          runId,
          env: definition.spec.id,
          split,
          episodes,
          concurrency,
          seed,
          horizon: curriculum.getSnapshot().context.horizon,
        });
        const fail = (error: unknown) => {
          deadlines.stop();
          events.error(error);
          pool.closeAll();
          reject(error instanceof Error ? error : new Error(String(error)));
        };
        run.subscribe({
          complete: () => {
            if (launchFailure) return fail(launchFailure);
            let summary: RolloutSummary;
            try {
              summary = summarize({
              env: definition.spec.id,
              split,
              agent: policy.name,
              seed,
              settled,
              attempts: run.getSnapshot().context.launched,
              slots: episodes,
              abortReasons,
              steps,
              horizon: curriculum.getSnapshot().context.horizon,
              wallSeconds: (clock.now() - startedAt) / 1000,
              ledger: buffer.getSnapshot().context.counts,
              });
            } catch (error) {
              deadlines.stop();
              pool.closeAll();
              reject(error instanceof Error ? error : new Error(String(error)));
              return;
            }
            deadlines.stop();
            events.next({ type: 'run.finished', t: clock.now(), runId, summary });
            events.complete();
            agent.stop();
            curriculum.stop();
            buffer.stop();
            pool.closeAll();
            resolve(summary);
          },
          error: fail,
        });
        run.start();
      });
      return started;
    },
  };
}
