// @ts-check
/**
 * The trajectory viewer: pick a run, a learner step and an episode, then replay it turn by turn
 * (observation, action, reward), with the grid drawn for BabyAI and the page shown for the web
 * env (its recorded picture, else its accessibility tree as the observation). Trajectories come
 * from the run directory through the JSON API; grids come from the server replaying the episode,
 * page pictures from the files `eval --screenshots` recorded.
 */
import { el, getJson, number, setText } from './format.js';
import { drawGrid, isGridPicture } from './grid.js';

const PLAY_MS = 800;

export class TrajectoryViewer {
  /** @param {HTMLElement} root @param {import('./store.js').Store} store */
  constructor(root, store) {
    this.store = store;
    /** @param {string} s */
    const q = (s) => /** @type {HTMLElement} */ (root.querySelector(s));
    this.runSelect = /** @type {HTMLSelectElement} */ (q('#traj-run'));
    this.stepSelect = /** @type {HTMLSelectElement} */ (q('#traj-step'));
    this.list = /** @type {HTMLTableSectionElement} */ (q('#episode-list tbody'));
    this.message = q('#traj-message');
    this.viewer = q('#viewer');
    this.title = q('#viewer-title');
    this.note = q('#replay-note');
    this.canvas = /** @type {HTMLCanvasElement} */ (q('#grid'));
    this.screenshot = /** @type {HTMLImageElement} */ (q('#screenshot'));
    this.stepLabel = q('#traj-step-label');
    this.mission = q('#mission');
    this.slider = /** @type {HTMLInputElement} */ (q('#turn-slider'));
    this.turnLabel = q('#turn-label');
    this.action = q('#turn-action');
    this.reward = q('#turn-reward');
    this.observation = q('#observation');
    this.turnList = q('#turn-list');
    this.playButton = /** @type {HTMLButtonElement} */ (q('#play'));
    /** @type {any} */
    this.episode = undefined;
    this.turn = 0;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.playing = undefined;
    this.followLatest = true;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.refreshTimer = undefined;

    this.runSelect.addEventListener('change', () => this.loadSteps(true));
    this.stepSelect.addEventListener('change', () => {
      this.followLatest = this.stepSelect.selectedIndex === 0;
      this.loadEpisodes();
    });
    q('#traj-refresh').addEventListener('click', () => this.loadSteps(false));
    q('#first').addEventListener('click', () => this.show(0));
    q('#prev').addEventListener('click', () => this.show(this.turn - 1));
    q('#next').addEventListener('click', () => this.show(this.turn + 1));
    q('#last').addEventListener('click', () => this.show(this.frames().length - 1));
    this.playButton.addEventListener('click', () => this.togglePlay());
    this.slider.addEventListener('input', () => this.show(Number(this.slider.value)));
    // Arrow keys step through turns anywhere on the tab, except in controls that use them already.
    document.addEventListener('keydown', (event) => {
      if (root.hidden || !this.episode || event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
      if (event.key === 'ArrowRight') this.show(this.turn + 1);
      else if (event.key === 'ArrowLeft') this.show(this.turn - 1);
    });
    store.subscribe((kind, run) => {
      if (kind === 'runs') this.updateRuns();
      // A new learner step has written its trajectories: refresh the list (at most once a second).
      if (kind === 'metrics' && run === this.runSelect.value && this.refreshTimer === undefined) {
        this.refreshTimer = setTimeout(() => {
          this.refreshTimer = undefined;
          this.loadSteps(false);
        }, 1000);
      }
    });
  }

  updateRuns() {
    const runs = this.store.runs.filter((run) => run.hasTrajectories);
    const options = runs.map((run) => run.id).join('|');
    if (this.runSelect.dataset.options === options) return;
    const previous = this.runSelect.value;
    this.runSelect.dataset.options = options;
    this.runSelect.replaceChildren(...runs.map((run) => el('option', { value: run.id, text: run.label })));
    if (runs.some((run) => run.id === previous)) this.runSelect.value = previous;
    if (runs.length === 0) setText(this.message, 'No run with trajectory files: they come from a run directory (`actorgym train --out DIR`, or `actorgym dashboard --run DIR`).');
    else if (this.runSelect.value !== previous || this.stepSelect.options.length === 0) this.loadSteps(true);
  }

  /** @param {boolean} reset */
  async loadSteps(reset) {
    const run = this.runSelect.value;
    if (!run) return;
    // An evaluation directory has one group of episodes, served as step 0.
    const evaluation = this.store.runs.find((r) => r.id === run)?.evaluation === true;
    setText(this.stepLabel, evaluation ? 'episodes' : 'learner step');
    try {
      /** @type {number[]} */
      const steps = await getJson(`/api/runs/${encodeURIComponent(run)}/steps`);
      const chosen = this.stepSelect.value;
      const options = steps.slice().reverse();
      if (this.stepSelect.dataset.options !== options.join(',')) {
        this.stepSelect.dataset.options = options.join(',');
        this.stepSelect.replaceChildren(...options.map((step) => el('option', { value: step, text: evaluation ? 'evaluation' : `step ${step}` })));
      }
      if (steps.length === 0) return setText(this.message, 'No trajectories yet: they are written after each learner step’s rollouts.');
      setText(this.message, '');
      const next = reset || this.followLatest || !chosen ? String(options[0]) : chosen;
      if (next !== chosen || reset || this.list.childElementCount === 0) {
        this.stepSelect.value = next;
        await this.loadEpisodes();
      }
    } catch (error) {
      setText(this.message, String(error instanceof Error ? error.message : error));
    }
  }

  async loadEpisodes() {
    const run = this.runSelect.value;
    const step = this.stepSelect.value;
    try {
      const episodes = await getJson(`/api/runs/${encodeURIComponent(run)}/steps/${step}`);
      this.list.replaceChildren(
        ...episodes.map((/** @type {any} */ e) => {
          const tr = el('tr', { 'data-index': e.index, tabindex: 0, title: e.error ?? e.episodeId ?? '' }, [
            el('td', { text: e.index }),
            el('td', {}, [el('span', { class: `chip ${e.outcome ?? 'unreadable'}`, text: e.outcome ?? 'unreadable' })]),
            el('td', { text: number(e.reward) }),
            el('td', { text: e.turns }),
            el('td', { class: 'task', text: e.taskId }),
          ]);
          tr.addEventListener('click', () => this.open(e.index));
          tr.addEventListener('keydown', (event) => {
            if (event.key === 'Enter') this.open(e.index);
          });
          return tr;
        }),
      );
    } catch (error) {
      setText(this.message, String(error instanceof Error ? error.message : error));
    }
  }

  /** @param {number} index */
  async open(index) {
    this.stop();
    for (const tr of this.list.children) tr.classList.toggle('selected', tr.getAttribute('data-index') === String(index));
    setText(this.title, 'replaying…');
    try {
      const run = this.runSelect.value;
      this.episode = await getJson(`/api/runs/${encodeURIComponent(run)}/steps/${this.stepSelect.value}/episodes/${index}`);
    } catch (error) {
      this.episode = undefined;
      setText(this.title, String(error instanceof Error ? error.message : error));
      return;
    }
    const e = this.episode;
    this.viewer.hidden = false;
    setText(this.title, `${e.taskId} · ${e.outcome ?? '?'}${e.abortReason ? ` (${e.abortReason})` : ''} · reward ${number(e.reward)} · ${e.frames.length - 1} turns${e.maxTurns ? ` of ${e.maxTurns}` : ''}`);
    setText(this.note, e.replayNote ?? '');
    this.note.hidden = !e.replayNote;
    this.slider.max = String(e.frames.length - 1);
    this.turnList.replaceChildren(
      ...e.frames.slice(1).map((/** @type {any} */ f) => {
        const li = el('li', { 'data-turn': f.turn, class: f.invalidAction ? 'invalid' : undefined }, [
          el('span', { class: 'action', text: f.action }),
          el('span', { class: 'reward', text: f.reward !== 0 ? `+${number(f.reward)}` : '' }),
        ]);
        li.addEventListener('click', () => this.show(f.turn));
        return li;
      }),
    );
    this.show(0);
  }

  frames() {
    return this.episode?.frames ?? [];
  }

  /** @param {number} turn */
  show(turn) {
    const frames = this.frames();
    if (frames.length === 0) return;
    this.turn = Math.max(0, Math.min(frames.length - 1, turn));
    const frame = frames[this.turn];
    this.slider.value = String(this.turn);
    setText(this.turnLabel, `turn ${this.turn} / ${frames.length - 1}`);
    this.viewer.dataset.turn = String(this.turn);
    setText(this.action, frame.action === undefined ? '(reset)' : frame.action + (frame.invalidAction ? '  — invalid' : ''));
    setText(this.reward, `${number(frame.reward)} (total ${number(frame.totalReward)})`);
    setText(this.observation, frame.observation);
    for (const li of this.turnList.children) li.classList.toggle('current', li.getAttribute('data-turn') === String(this.turn));
    const picture = frame.picture;
    this.canvas.hidden = !isGridPicture(picture);
    this.screenshot.hidden = typeof frame.screenshot !== 'string';
    if (typeof frame.screenshot === 'string') {
      if (this.screenshot.getAttribute('src') !== frame.screenshot) this.screenshot.src = frame.screenshot;
      this.screenshot.alt = `the page after ${this.turn === 0 ? 'reset' : `turn ${this.turn}`}`;
    } else {
      this.screenshot.removeAttribute('src');
    }
    this.viewer.dataset.picture = isGridPicture(picture) ? 'grid' : typeof frame.screenshot === 'string' ? 'screenshot' : 'none';
    if (isGridPicture(picture)) {
      drawGrid(this.canvas, picture);
      const carrying = picture.carrying ? ` · carrying a ${picture.carrying.color} ${picture.carrying.type}` : '';
      setText(this.mission, `${picture.mission ?? ''}${carrying}`);
    } else {
      setText(this.mission, '');
    }
  }

  togglePlay() {
    if (this.playing !== undefined) return this.stop();
    if (this.turn >= this.frames().length - 1) this.show(0);
    this.playButton.textContent = '❚❚';
    this.playing = setInterval(() => {
      if (this.turn >= this.frames().length - 1) this.stop();
      else this.show(this.turn + 1);
    }, PLAY_MS);
  }

  stop() {
    clearInterval(this.playing);
    this.playing = undefined;
    this.playButton.textContent = '▶';
  }
}
