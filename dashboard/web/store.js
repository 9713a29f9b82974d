// @ts-check
/**
 * The page's copy of the server state, kept from `/live` frames (dashboard/server/wire.ts):
 * runs, chart rows per run, and the episode board per run. Views subscribe to changes.
 */

/** @typedef {{ id: string, label: string, kind: string, status: string, live: boolean, env?: string, xAxis: 'step' | 'window', hasTrajectories: boolean, evaluation?: boolean, buffer?: BufferInfo }} RunInfo */
/** @typedef {{ fill: number, capacity: number, ready: number, trained: number, droppedStale: number, droppedDuplicate: number, stalenessHistogram: Record<string, number> }} BufferInfo */
/** @typedef {{ id: string, taskId: string, slot: number, attempt: number, state: string, turn: number, maxTurns: number, since: number, startedAt: number, reward: number, lastAction?: string }} EpisodeRow */
/** @typedef {{ success: number, failure: number, truncated: number, aborted: number }} Outcomes */
/** @typedef {{ id: string, taskId: string, outcome: string, reward: number, turns: number, maxTurns: number, abortReason?: string }} FinishedRow */
/** @typedef {{ rows: Map<string, EpisodeRow>, outcomes: Outcomes, rollout: Outcomes, rolloutId?: string, horizon?: number, overflow: number, recent: FinishedRow[] }} Board */

/** Finished episodes the board keeps for its "recently finished" strip. */
const RECENT = 48;

export class Store {
  constructor() {
    /** @type {RunInfo[]} */
    this.runs = [];
    /** @type {Map<string, Record<string, number>[]>} */
    this.metrics = new Map();
    /** @type {Map<string, Board>} */
    this.boards = new Map();
    this.alarmMs = 30_000;
    /** Date.now() minus the server's clock. */
    this.offset = 0;
    /** @type {Set<(kind: 'runs' | 'metrics' | 'board', run?: string, diff?: any) => void>} */
    this.listeners = new Set();
  }

  /** The server's clock now, to turn `since` into "for how long". */
  serverNow() {
    return Date.now() - this.offset;
  }

  /** `diff` is the board frame's diff (undefined after a hello: redraw the whole board). @param {(kind: 'runs' | 'metrics' | 'board', run?: string, diff?: any) => void} listener */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** @param {'runs' | 'metrics' | 'board'} kind @param {string} [run] @param {any} [diff] */
  emit(kind, run, diff) {
    for (const listener of this.listeners) listener(kind, run, diff);
  }

  /** Applies one server frame; unknown frames are ignored (a newer server). @param {any} frame */
  apply(frame) {
    switch (frame?.op) {
      case 'hello':
        this.offset = Date.now() - frame.now;
        this.alarmMs = frame.alarmMs;
        this.runs = frame.runs;
        this.metrics = new Map(Object.entries(frame.metrics).map(([id, rows]) => [id, [.../** @type {any[]} */ (rows)]]));
        this.boards = new Map();
        for (const [id, diff] of Object.entries(frame.boards)) this.applyBoard(id, diff);
        this.emit('runs');
        for (const run of this.runs) {
          this.emit('metrics', run.id);
          this.emit('board', run.id);
        }
        return;
      case 'runs':
        this.runs = frame.runs;
        return this.emit('runs');
      case 'metrics': {
        const rows = frame.replace ? [] : this.metrics.get(frame.run) ?? [];
        rows.push(...frame.rows);
        this.metrics.set(frame.run, rows);
        return this.emit('metrics', frame.run);
      }
      case 'board':
        this.offset = Date.now() - frame.now;
        this.applyBoard(frame.run, frame.board);
        return this.emit('board', frame.run, frame.board);
      case 'error':
        console.warn('dashboard server:', frame.error);
        return;
    }
  }

  /** @param {string} id @param {any} diff */
  applyBoard(id, diff) {
    let board = this.boards.get(id);
    if (!board) {
      board = { rows: new Map(), outcomes: diff.outcomes, rollout: diff.rollout, overflow: 0, recent: [] };
      this.boards.set(id, board);
    }
    if (diff.full) board.rows.clear();
    for (const row of diff.upsert) board.rows.set(row.id, row);
    for (const gone of diff.remove) board.rows.delete(gone);
    board.outcomes = diff.outcomes;
    board.rollout = diff.rollout;
    board.rolloutId = diff.rolloutId;
    board.horizon = diff.horizon;
    board.overflow = diff.overflow;
    board.recent.push(...diff.finished);
    if (board.recent.length > RECENT) board.recent.splice(0, board.recent.length - RECENT);
  }

  /** @param {string} id */
  runIndex(id) {
    return this.runs.findIndex((run) => run.id === id);
  }
}
