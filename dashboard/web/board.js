// @ts-check
/**
 * The live episode board: one row per running episode with its machine state, turn/horizon, how
 * long it has been in that state, its reward so far and last action. A row stuck in one state
 * longer than the alarm threshold is highlighted and moves to the top (the threshold is set on
 * the page, starting from the server's `--alarm-seconds`). Outcome counts include aborted ones.
 *
 * Cheap on purpose, since the page may sit next to the training on the same cores: the board is
 * redrawn at most every RENDER_MS (the server pushes up to 10 Hz; a layout and paint of the table
 * costs far more than applying a diff), only the rows in view exist in the DOM (a fixed row
 * height and two spacer rows stand for the others, so 4 096 episodes cost what 30 do), and
 * nothing is drawn while the tab is hidden.
 */
import { duration, el, number, setText } from './format.js';

const OUTCOMES = /** @type {const} */ (['success', 'failure', 'truncated', 'aborted']);
const RECENT_DOTS = 48;
/** One redraw (rows, time in state, alarms) per this many ms, at most. */
const RENDER_MS = 250;
/** Must match `.board tbody tr { height }` in style.css. */
const ROW_HEIGHT = 24;
const OVERSCAN = 4;

export class EpisodeBoardView {
  /** @param {HTMLElement} root @param {import('./store.js').Store} store */
  constructor(root, store) {
    this.store = store;
    /** @param {string} s */
    const q = (s) => /** @type {HTMLElement} */ (root.querySelector(s));
    this.runSelect = /** @type {HTMLSelectElement} */ (q('#board-run'));
    this.summary = q('#board-summary');
    this.outcomes = q('#outcomes');
    this.wrap = q('.board-wrap');
    this.body = /** @type {HTMLTableSectionElement} */ (q('#board tbody'));
    this.recent = q('#recent');
    this.alarmInput = /** @type {HTMLInputElement} */ (q('#alarm-seconds'));
    this.empty = q('#board-empty');
    this.badge = /** @type {HTMLElement} */ (document.querySelector('#alarm-count'));
    this.above = /** @type {HTMLTableRowElement} */ (el('tr', { class: 'spacer' }, [el('td', { colspan: 7 })]));
    this.below = /** @type {HTMLTableRowElement} */ (el('tr', { class: 'spacer' }, [el('td', { colspan: 7 })]));
    this.body.append(this.above, this.below);
    /** Row elements in view, reused from one redraw to the next. @type {{ tr: HTMLTableRowElement, cells: HTMLElement[], bar: HTMLElement }[]} */
    this.pool = [];
    /** @type {string | undefined} */
    this.runId = undefined;
    /** @type {number | undefined} */
    this.alarmMs = undefined;
    this.visible = false;
    this.recentChanged = true;
    this.lastOutcomes = '';
    this.runSelect.addEventListener('change', () => this.select(this.runSelect.value));
    this.alarmInput.addEventListener('input', () => {
      const seconds = Number(this.alarmInput.value);
      if (seconds > 0) this.alarmMs = seconds * 1000;
      this.render();
    });
    this.wrap.addEventListener('scroll', () => requestAnimationFrame(() => this.render()), { passive: true });
    store.subscribe((kind, run, diff) => {
      if (kind === 'runs') this.updateRuns();
      else if (kind === 'board' && run === this.runId && (!diff || diff.full || diff.finished.length > 0)) this.recentChanged = true;
    });
    // Time in state moves without any frame arriving, so this runs whether or not frames came.
    setInterval(() => this.render(), RENDER_MS);
  }

  /** @param {boolean} visible */
  setVisible(visible) {
    this.visible = visible;
    this.recentChanged = true;
    this.render();
  }

  updateRuns() {
    const boards = this.store.runs.filter((run) => run.kind !== 'dir');
    const options = boards.map((run) => `${run.id}\u0000${run.label}`).join('|');
    if (this.runSelect.dataset.options !== options) {
      this.runSelect.dataset.options = options;
      this.runSelect.replaceChildren(...boards.map((run) => el('option', { value: run.id, text: run.label })));
    }
    if (this.alarmMs === undefined) {
      this.alarmMs = this.store.alarmMs;
      this.alarmInput.value = String(this.store.alarmMs / 1000);
    }
    const keep = boards.some((run) => run.id === this.runId);
    this.select(keep ? /** @type {string} */ (this.runId) : boards.find((run) => run.live)?.id ?? boards[0]?.id);
  }

  /** @param {string | undefined} runId */
  select(runId) {
    this.runId = runId;
    if (runId !== undefined) this.runSelect.value = runId;
    this.recentChanged = true;
    this.render();
  }

  render() {
    const board = this.runId === undefined ? undefined : this.store.boards.get(this.runId);
    const now = this.store.serverNow();
    const alarmMs = this.alarmMs ?? this.store.alarmMs;
    const episodes = board ? [...board.rows.values()] : [];
    const stuck = new Set(episodes.filter((e) => now - e.since > alarmMs).map((e) => e.id));
    setText(this.badge, stuck.size > 0 ? `${stuck.size} stalled > ${alarmMs < 120_000 ? `${alarmMs / 1000} s` : duration(alarmMs)}` : '');
    this.badge.hidden = stuck.size === 0;
    if (!this.visible) return;

    // Stuck episodes first (the ones to look at), then slot order, so rows do not jump as episodes come and go.
    episodes.sort((a, b) => Number(stuck.has(b.id)) - Number(stuck.has(a.id)) || a.slot - b.slot || a.attempt - b.attempt);
    const first = Math.min(Math.floor(this.wrap.scrollTop / ROW_HEIGHT), Math.max(0, episodes.length - 1));
    const shown = episodes.slice(Math.max(0, first - OVERSCAN), first + Math.ceil(this.wrap.clientHeight / ROW_HEIGHT) + OVERSCAN);
    const start = Math.max(0, first - OVERSCAN);
    this.above.style.height = `${start * ROW_HEIGHT}px`;
    this.below.style.height = `${(episodes.length - start - shown.length) * ROW_HEIGHT}px`;
    while (this.pool.length < shown.length) this.pool.push(this.newRow());
    while (this.pool.length > shown.length) this.pool.pop()?.tr.remove();
    shown.forEach((e, i) => this.fill(/** @type {any} */ (this.pool[i]), e, now - e.since, stuck.has(e.id)));

    const run = this.store.runs.find((r) => r.id === this.runId);
    this.empty.hidden = board !== undefined && (board.rows.size > 0 || board.recent.length > 0);
    this.empty.textContent = run ? (run.live ? 'No episode running right now.' : 'This run has ended.') : 'No live run: start one with `actorgym train`, or attach with --connect.';
    const parts = [`${episodes.length} running`];
    if (board?.horizon !== undefined) parts.push(`horizon ${board.horizon}`);
    if (board?.overflow) parts.push(`${board.overflow} more not shown`);
    setText(this.summary, parts.join(' · '));
    this.summary.dataset.running = String(episodes.length);
    this.summary.dataset.alarms = String(stuck.size);
    if (!board) return;
    const html =
      `<span class="label">all episodes</span>${OUTCOMES.map((o) => `<span class="chip ${o}">${o} <b>${board.outcomes[o]}</b></span>`).join('')}` +
      `<span class="label">this rollout${board.rolloutId ? ` (${escape(board.rolloutId)})` : ''}</span>` +
      `<span class="rollout">${OUTCOMES.map((o) => `${o} ${board.rollout[o]}`).join(' · ')}</span>`;
    if (html !== this.lastOutcomes) this.outcomes.innerHTML = this.lastOutcomes = html;
    if (this.recentChanged) {
      this.recentChanged = false;
      this.recent.replaceChildren(...board.recent.slice(-RECENT_DOTS).reverse().map(dot));
    }
  }

  newRow() {
    const cells = [0, 1, 2, 3, 4, 5, 6].map(() => el('td'));
    const bar = el('span');
    cells[3].append(el('span', { class: 'turns' }), el('span', { class: 'bar' }, [bar]));
    const tr = /** @type {HTMLTableRowElement} */ (el('tr', {}, cells));
    this.body.insertBefore(tr, this.below);
    return { tr, cells, bar };
  }

  /**
   * @param {{ tr: HTMLTableRowElement, cells: HTMLElement[], bar: HTMLElement }} row
   * @param {import('./store.js').EpisodeRow} e @param {number} elapsed @param {boolean} alarm
   */
  fill(row, e, elapsed, alarm) {
    const { tr, cells, bar } = row;
    if (tr.dataset.episode !== e.id) {
      tr.dataset.episode = e.id;
      setText(cells[0], e.id);
      setText(cells[1], e.taskId);
      cells[1].title = e.taskId;
    }
    if (tr.dataset.state !== e.state) {
      tr.dataset.state = e.state;
      setText(cells[2], e.state);
      cells[2].className = `state ${e.state}`;
    }
    setText(/** @type {Element} */ (cells[3].firstChild), `${e.turn} / ${e.maxTurns}`);
    const width = `${e.maxTurns > 0 ? Math.min(100, Math.round((100 * e.turn) / e.maxTurns)) : 0}%`;
    if (bar.style.width !== width) bar.style.width = width;
    setText(cells[4], duration(elapsed));
    setText(cells[5], number(e.reward));
    setText(cells[6], e.lastAction ?? '');
    if (tr.classList.contains('alarm') !== alarm) tr.classList.toggle('alarm', alarm);
  }
}

/** @param {import('./store.js').FinishedRow} f */
const dot = (f) =>
  el('span', { class: `dot ${f.outcome}`, title: `${f.id} ${f.taskId}: ${f.outcome}${f.abortReason ? ` (${f.abortReason})` : ''}, reward ${number(f.reward)}, ${f.turns}/${f.maxTurns} turns` });

/** @param {string} text */
const escape = (text) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
