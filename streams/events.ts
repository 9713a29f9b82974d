/**
 * The typed event stream of a run. Every event is JSON-serialisable, carries `t` and a `type` in
 * `domain.verb` form. `t` is when the run emitted it, in milliseconds since the Unix epoch, read
 * from the run's injected clock (`RunClock.now()`, actors/clock.ts: `Date.now()` by default; a
 * run given another clock stamps what that clock returns); it is not relative to the run's
 * start. The same objects travel in-process (an RxJS Observable) and over WebSocket
 * (`docs/protocol.md`).
 */
import type { Split } from '../envs/contract.ts';
import type { AbortReason, EpisodeOutcome, OutcomeCounts } from '../machines/outcome.ts';

// The machines own these; the events carry them.
export type { AbortReason, EpisodeOutcome, OutcomeCounts };

export interface RunStarted {
  readonly type: 'run.started';
  readonly t: number;
  readonly runId: string;
  readonly env: string;
  readonly split: Split;
  readonly episodes: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly horizon: number;
}

export interface EpisodeStarted {
  readonly type: 'episode.started';
  readonly t: number;
  readonly episodeId: string;
  readonly taskId: string;
  /** Index of the task slot in the run; retries of a slot share it. */
  readonly slot: number;
  /** 0 for the first attempt, 1.. for retries after an abort. */
  readonly attempt: number;
  readonly maxTurns: number;
  readonly policyVersion: number;
}

export interface AgentActed {
  readonly type: 'agent.acted';
  readonly t: number;
  readonly episodeId: string;
  readonly turn: number;
  readonly action: string;
}

export interface EnvStepped {
  readonly type: 'env.stepped';
  readonly t: number;
  readonly episodeId: string;
  readonly turn: number;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
}

export interface EpisodeFinished {
  readonly type: 'episode.finished';
  readonly t: number;
  readonly episodeId: string;
  readonly taskId: string;
  readonly slot: number;
  readonly attempt: number;
  readonly outcome: EpisodeOutcome;
  /** Total reward; 0 for aborted episodes, which are never trained on. */
  readonly reward: number;
  readonly turns: number;
  readonly maxTurns: number;
  readonly policyVersion: number;
  /** Set for `aborted`: what failed, and the error message. */
  readonly abortReason?: AbortReason;
  readonly error?: string;
}

export interface HorizonChanged {
  readonly type: 'horizon.changed';
  readonly t: number;
  readonly from: number;
  readonly to: number;
  /** The learner step at which the new horizon takes effect. */
  readonly step: number;
  readonly reason: string;
}

export interface RunFinished {
  readonly type: 'run.finished';
  readonly t: number;
  readonly runId: string;
  readonly summary: RolloutSummary;
}

export type RunEvent =
  | RunStarted
  | EpisodeStarted
  | AgentActed
  | EnvStepped
  | EpisodeFinished
  | HorizonChanged
  | RunFinished;

export type RunEventType = RunEvent['type'];

/** What `rollout --json` prints and `createRolloutSystem` resolves to. */
export interface RolloutSummary {
  readonly env: string;
  readonly split: Split;
  readonly agent: string;
  readonly seed: number;
  /** Task slots the run was given. */
  readonly slots: number;
  /**
   * Task slots settled, each exactly once, with the outcome of its last attempt. Fewer than
   * `slots` only when the run was stopped: the rest never started and are counted in
   * `abortedShare`, never in the rates.
   */
  readonly episodes: number;
  /** Attempts, including retries after aborts. */
  readonly attempts: number;
  /** Attempts that ended aborted, the retried ones included. */
  readonly abortedAttempts: number;
  /** `abortedAttempts` by abort reason (`env_lost`, `env_timeout`, …). */
  readonly abortReasons: Readonly<Record<string, number>>;
  /** Successes over scored episodes (settled and not aborted). */
  readonly successRate: number;
  /**
   * Share of `slots` with no scored outcome: settled as aborted, or never settled (a stopped
   * run). `--max-aborted` (default 0.05) is checked against it.
   */
  readonly abortedShare: number;
  /**
   * The success rate over all `slots` had every slot without a scored outcome failed (`low`) or
   * succeeded (`high`): the true rate of the full run lies in between, whatever the missing
   * episodes would have done.
   */
  readonly successRange: { readonly low: number; readonly high: number };
  /** Mean total reward over episodes that were not aborted. */
  readonly meanReward: number;
  readonly meanTurns: number;
  readonly outcomes: OutcomeCounts;
  readonly horizon: number;
  readonly wallSeconds: number;
  readonly stepsPerSecond: number;
  /** Per-slot results, in slot order. */
  readonly results: readonly EpisodeResult[];
}

export interface EpisodeResult {
  readonly slot: number;
  readonly taskId: string;
  readonly outcome: EpisodeOutcome;
  readonly reward: number;
  readonly turns: number;
  readonly maxTurns: number;
  readonly attempts: number;
  /** Why the last attempt was aborted, when the slot settled as `aborted`. */
  readonly abortReason?: AbortReason;
}
