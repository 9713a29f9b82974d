/** The rollout system's options and handle (actors/rollout-system.ts). */
import type { Observable } from 'rxjs';
import type { Env, EnvDefinition, Split } from '../../envs/contract.ts';
import type { TaskPick } from '../../envs/pick-tasks.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import type { Schedule } from '../../machines/schedule.ts';
import type { Policy } from '../../policy/policy.ts';
import type { RolloutSummary, RunEvent } from '../../streams/events.ts';
import type { RunClock } from '../clock.ts';
import type { CurriculumActorRef } from '../curriculum.actor.ts';

/** Who acts in a rollout: a `Policy`, or the built-in `random` or `oracle` agent. */
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

/** Options of `createRolloutSystem`: the env and agent, the split and episodes (or explicit slots), concurrency, horizon schedule, seed, retries and deadlines. */
export interface RolloutSystemOptions {
  readonly env: EnvDefinition;
  readonly agent: AgentSpec;
  /** Which split's tasks to run. Default `test`. */
  readonly split?: Split;
  /** Task slots to run; default the whole split (cycled when larger than the split). */
  readonly episodes?: number;
  /**
   * Which tasks `episodes` takes when it is fewer than the split (envs/pick-tasks.ts): `first`
   * (default) the split's first N, `stratified` round-robin over the task categories (the CLI's
   * default).
   */
  readonly pick?: TaskPick;
  /** Run the tasks in an order shuffled by `seed` (the whole split, cycled, when `episodes` is past it). Default false. */
  readonly shuffle?: boolean;
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
   * Receives what the policy's `release` returns when an episode ends (its token record, for a
   * recording policy), before that episode's `onEpisode`.
   */
  readonly onRelease?: (episodeId: string, released: ReturnType<Policy['release']>) => void;
  /**
   * Wraps the policy the agent actor calls (after 'random' / 'oracle' are resolved), e.g. to
   * record each turn's request (demos/recording-policy.ts).
   */
  readonly wrapPolicy?: (policy: Policy) => Policy;
}

/** A rollout system: its `events`, `run()` for the summary, `stop()`, and the curriculum actor that owns the horizon. */
export interface RolloutSystem {
  readonly events: Observable<RunEvent>;
  /** Send `{ type: 'LEARNER.STEPPED', step }` to move the schedule; new episodes take the new horizon. */
  readonly curriculum: CurriculumActorRef;
  run(): Promise<RolloutSummary>;
  /** Stops starting episodes and aborts running ones as `cancelled`; `run()` then resolves. */
  stop(reason?: string): void;
}
