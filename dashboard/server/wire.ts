/**
 * What the dashboard server and its page say to each other over `/live` (docs/dashboard.md).
 * Server → page frames carry aggregated state, never raw events: the page gets the episode board
 * as diffs at most `tickMs` apart, whatever the run's event rate. Page → server frames are
 * validated; anything else gets an `error` frame and the connection stays up.
 */
import { z } from 'zod';
import type { OutcomeCounts } from '../../streams/events.ts';
import type { BufferChanged } from '../../streams/training-events.ts';

/** A metrics.jsonl line, or a window of episodes for runs without a learner. */
export type MetricRow = Readonly<Record<string, number>>;

export type RunKind = 'live' | 'dir' | 'remote';

export interface RunInfo {
  readonly id: string;
  readonly label: string;
  readonly kind: RunKind;
  /** One line for humans: `step 12/100`, `finished`, `connecting…`, `error: …`. */
  readonly status: string;
  /** True while events can still arrive (a live or connected run that has not ended). */
  readonly live: boolean;
  readonly env: string | undefined;
  /** The run's x axis: learner steps, or windows of finished episodes for rollout-only runs. */
  readonly xAxis: 'step' | 'window';
  readonly hasTrajectories: boolean;
  /** Set when the run directory is an `actorgym eval` directory: its episodes are one group, step 0. */
  readonly evaluation?: true;
  /** A training run's buffer actor, as its last `buffer.changed` said (docs/events.md). */
  readonly buffer?: BufferInfo;
}

/** What the page shows of the buffer: fill against capacity, the counts, the staleness histogram. */
export type BufferInfo = Omit<BufferChanged, 'type' | 't' | 'learnerVersion' | 'takenThrough'>;

/** The machine state of a running episode, as far as the events tell it. */
export type EpisodeState = 'resetting' | 'acting' | 'stepping' | (string & {});

export interface EpisodeRow {
  readonly id: string;
  readonly taskId: string;
  readonly slot: number;
  readonly attempt: number;
  readonly state: EpisodeState;
  /** Turns completed (env steps). */
  readonly turn: number;
  readonly maxTurns: number;
  /** Server time (ms) when the episode entered `state`. */
  readonly since: number;
  readonly startedAt: number;
  readonly reward: number;
  readonly lastAction: string | undefined;
}

export interface FinishedRow {
  readonly id: string;
  readonly taskId: string;
  readonly outcome: keyof OutcomeCounts;
  readonly reward: number;
  readonly turns: number;
  readonly maxTurns: number;
  readonly abortReason: string | undefined;
}

export interface BoardTotals {
  /** Outcomes over the whole source. */
  readonly outcomes: OutcomeCounts;
  /** Outcomes since the latest `run.started` (one learner step's rollout, or the evaluation). */
  readonly rollout: OutcomeCounts;
  /** The latest `run.started` runId (`step-12`, an evaluation name…). */
  readonly rolloutId: string | undefined;
  readonly horizon: number | undefined;
  /** Episodes not shown because the board was full (see MAX_BOARD_ROWS). */
  readonly overflow: number;
}

export interface BoardDiff extends BoardTotals {
  /** True: `upsert` is the whole board (drop rows not in it). */
  readonly full: boolean;
  readonly upsert: readonly EpisodeRow[];
  readonly remove: readonly string[];
  /** Newly finished episodes, oldest first (the page keeps the last few). */
  readonly finished: readonly FinishedRow[];
}

export type ServerFrame =
  | {
      readonly op: 'hello';
      /** Server time, so the page can turn `since` into "for how long". */
      readonly now: number;
      readonly alarmMs: number;
      readonly runs: readonly RunInfo[];
      readonly metrics: Readonly<Record<string, readonly MetricRow[]>>;
      readonly boards: Readonly<Record<string, BoardDiff>>;
    }
  | { readonly op: 'runs'; readonly runs: readonly RunInfo[] }
  /** `replace`: drop the run's rows first (a run switched from episode windows to learner steps, or was downsampled). */
  | { readonly op: 'metrics'; readonly run: string; readonly replace: boolean; readonly rows: readonly MetricRow[] }
  | { readonly op: 'board'; readonly run: string; readonly now: number; readonly board: BoardDiff }
  | { readonly op: 'error'; readonly error: { readonly code: DashboardWireErrorCode; readonly message: string } };

export type DashboardWireErrorCode = 'BAD_JSON' | 'BAD_FRAME' | 'UNKNOWN_OP';

/** Page → server. `resync` asks for a fresh `hello` (e.g. after the tab slept). */
export const ClientFrameSchema = z.object({ op: z.literal('resync') });
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

export const emptyOutcomes = (): OutcomeCounts => ({ success: 0, failure: 0, truncated: 0, aborted: 0 });
