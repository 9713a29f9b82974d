/**
 * The live episode board of one source: every running episode's machine state, derived from its
 * events (`episode.started` → resetting, `agent.acted` → stepping, `env.stepped` → acting), plus
 * outcome counts. Events are folded in as they come (O(1) each, no I/O, so the run is not slowed);
 * `takeDiff()` hands the changes since the previous call to whoever broadcasts them.
 *
 * The reset → first decision transition emits no event, so `resetting` lasts until the first
 * action. Time comes from the injected `now` (server receive time, not the run's `t`, so a remote
 * run's clock skew does not matter).
 */
import type { EpisodeOutcome, OutcomeCounts } from '../../streams/events.ts';
import { emptyOutcomes, type BoardDiff, type EpisodeRow, type FinishedRow } from './wire.ts';

/** Rows kept at most; more running episodes are counted in `overflow`, not shown. */
export const MAX_BOARD_ROWS = 4096;
/** Finished episodes buffered between two diffs; older ones are dropped (the page shows the last few). */
export const MAX_FINISHED_PER_DIFF = 64;

/** The fields of the events the board reads; anything else in an event is ignored. */
export type BoardEvent = { readonly type: string } & Readonly<Record<string, unknown>>;

type MutableRow = { -readonly [K in keyof EpisodeRow]: EpisodeRow[K] };

export class EpisodeBoard {
  private readonly rows = new Map<string, MutableRow>();
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();
  private finished: FinishedRow[] = [];
  private outcomes: OutcomeCounts = emptyOutcomes();
  private rollout: OutcomeCounts = emptyOutcomes();
  private rolloutId: string | undefined;
  private horizon: number | undefined;
  /** Episodes started while the board was full, until they finish. */
  private readonly overflow = new Set<string>();
  private dirty = false;
  private full = false;

  constructor(private readonly now: () => number) {}

  /** Folds one event in; returns whether the board changed. */
  apply(event: BoardEvent): boolean {
    switch (event.type) {
      case 'run.started':
        this.rolloutId = str(event.runId);
        this.rollout = emptyOutcomes();
        if (typeof event.horizon === 'number') this.horizon = event.horizon;
        return this.touch();
      case 'horizon.changed':
        if (typeof event.to === 'number') this.horizon = event.to;
        return this.touch();
      case 'episode.started':
        return this.start(event);
      case 'agent.acted':
        return this.update(event, 'stepping', (row) => {
          row.lastAction = str(event.action);
          if (typeof event.turn === 'number') row.turn = event.turn;
        });
      case 'env.stepped':
        return this.update(event, 'acting', (row) => {
          if (typeof event.turn === 'number') row.turn = event.turn + 1;
          if (typeof event.reward === 'number') row.reward += event.reward;
        });
      case 'episode.state':
        // Emitted by runs that report machine states directly; trusted as given.
        return typeof event.state === 'string' ? this.update(event, event.state, () => {}) : false;
      case 'episode.finished':
        return this.finish(event);
      default:
        return false;
    }
  }

  /**
   * Forgets the running episodes (a remote source reconnected: the ones it knew may have ended
   * unseen). Outcome counts are kept. The next diff is a full one.
   */
  clearRunning(): void {
    this.rows.clear();
    this.overflow.clear();
    this.changed.clear();
    this.removed.clear();
    this.full = true;
    this.dirty = true;
  }

  /** The changes since the previous diff, or undefined when nothing changed. */
  takeDiff(): BoardDiff | undefined {
    if (!this.dirty) return undefined;
    if (this.full) {
      const diff = { ...this.snapshot(), finished: this.finished };
      this.full = false;
      this.changed.clear();
      this.removed.clear();
      this.finished = [];
      this.dirty = false;
      return diff;
    }
    const upsert: EpisodeRow[] = [];
    for (const id of this.changed) {
      const row = this.rows.get(id);
      if (row) upsert.push({ ...row });
    }
    const diff: BoardDiff = { ...this.totals(), full: false, upsert, remove: [...this.removed], finished: this.finished };
    this.changed.clear();
    this.removed.clear();
    this.finished = [];
    this.dirty = false;
    return diff;
  }

  /** The whole board, for a page that connects or resyncs; does not consume the pending diff. */
  snapshot(): BoardDiff {
    return { ...this.totals(), full: true, upsert: [...this.rows.values()].map((row) => ({ ...row })), remove: [], finished: [] };
  }

  get running(): number {
    return this.rows.size;
  }

  private totals() {
    return {
      outcomes: { ...this.outcomes },
      rollout: { ...this.rollout },
      rolloutId: this.rolloutId,
      horizon: this.horizon,
      overflow: this.overflow.size,
    };
  }

  private touch(): boolean {
    this.dirty = true;
    return true;
  }

  private start(event: BoardEvent): boolean {
    const id = str(event.episodeId);
    if (id === undefined) return false;
    if (this.rows.size >= MAX_BOARD_ROWS && !this.rows.has(id)) {
      this.overflow.add(id);
      return this.touch();
    }
    const now = this.now();
    const maxTurns = num(event.maxTurns);
    this.rows.set(id, {
      id,
      taskId: str(event.taskId) ?? '',
      slot: num(event.slot),
      attempt: num(event.attempt),
      state: 'resetting',
      turn: 0,
      maxTurns,
      since: now,
      startedAt: now,
      reward: 0,
      lastAction: undefined,
    });
    if (maxTurns > 0) this.horizon ??= maxTurns;
    this.changed.add(id);
    this.removed.delete(id);
    return this.touch();
  }

  private update(event: BoardEvent, state: string, change: (row: MutableRow) => void): boolean {
    const id = str(event.episodeId);
    const row = id === undefined ? undefined : this.rows.get(id);
    if (!row || id === undefined) return false;
    if (row.state !== state) {
      row.state = state;
      row.since = this.now();
    }
    change(row);
    this.changed.add(id);
    return this.touch();
  }

  private finish(event: BoardEvent): boolean {
    const id = str(event.episodeId);
    const outcome = event.outcome as EpisodeOutcome;
    if (id === undefined || !(outcome in this.outcomes)) return false;
    this.outcomes[outcome]++;
    this.rollout[outcome]++;
    if (this.rows.delete(id)) this.removed.add(id);
    else this.overflow.delete(id);
    this.changed.delete(id);
    if (this.finished.length >= MAX_FINISHED_PER_DIFF) this.finished.shift();
    this.finished.push({
      id,
      taskId: str(event.taskId) ?? '',
      outcome,
      reward: num(event.reward),
      turns: num(event.turns),
      maxTurns: num(event.maxTurns),
      abortReason: str(event.abortReason),
    });
    return this.touch();
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
