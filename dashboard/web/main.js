// @ts-check
/** The dashboard page: wires the live connection, the store and the three views. */
import { EpisodeBoardView } from './board.js';
import { Charts } from './charts.js';
import { el, runColor } from './format.js';
import { connectLive } from './live-connection.js';
import { Store } from './store.js';
import { TrajectoryViewer } from './trajectories.js';

const store = new Store();
/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const charts = new Charts($('charts'), store);
const board = new EpisodeBoardView($('tab-board'), store);
new TrajectoryViewer($('tab-trajectories'), store);

/** Tabs; the URL hash keeps the open one across reloads (#charts, #board, #trajectories). */
const TABS = ['charts', 'board', 'trajectories'];
/** @param {string} name */
function openTab(name) {
  const tab = TABS.includes(name) ? name : 'charts';
  for (const other of TABS) {
    $(`tab-${other}`).hidden = other !== tab;
    document.querySelector(`nav button[data-tab="${other}"]`)?.setAttribute('aria-selected', String(other === tab));
  }
  charts.setVisible(tab === 'charts');
  board.setVisible(tab === 'board');
  if (location.hash !== `#${tab}`) history.replaceState(null, '', `#${tab}`);
}
for (const button of document.querySelectorAll('nav button[data-tab]')) {
  button.addEventListener('click', () => openTab(/** @type {string} */ (button.getAttribute('data-tab'))));
}
openTab(location.hash.slice(1));
window.addEventListener('hashchange', () => openTab(location.hash.slice(1)));

/** The run legend: colour (as in the charts), name, status. */
store.subscribe((kind) => {
  if (kind !== 'runs') return;
  $('runs').replaceChildren(
    ...store.runs.map((run, i) =>
      el('span', { class: `run ${run.live ? 'live' : ''}`, 'data-run': run.id, title: `${run.kind} run${run.env ? ` on ${run.env}` : ''}` }, [
        el('span', { class: 'swatch', style: `background:${runColor(i)}` }),
        el('b', { text: run.label }),
        el('span', { class: 'status', text: run.status }),
        ...(run.buffer ? [bufferPanel(run.buffer)] : []),
      ]),
    ),
  );
});

/**
 * A training run's buffer: fill against capacity as a bar, the counts, and how stale the trained
 * groups were (`0:12 1:4`: 12 groups trained on the learner's own version, 4 one version behind).
 * @param {import('./store.js').BufferInfo} b
 */
function bufferPanel(b) {
  const staleness = Object.entries(b.stalenessHistogram).sort(([x], [y]) => Number(x) - Number(y)).map(([k, n]) => `${k}:${n}`).join(' ');
  const share = b.capacity > 0 ? Math.min(1, b.fill / b.capacity) : 0;
  return el('span', { class: 'buffer', title: 'buffer: groups pending or ready / capacity; trained; dropped stale and duplicate; staleness → groups trained' }, [
    el('span', { class: 'buffer-bar' }, [el('span', { class: 'buffer-fill', style: `width:${(100 * share).toFixed(0)}%` })]),
    el('span', { text: `buffer ${b.fill}/${b.capacity} · ready ${b.ready} · trained ${b.trained} · stale ${b.droppedStale} · dup ${b.droppedDuplicate}${staleness ? ` · staleness ${staleness}` : ''}` }),
  ]);
}

connectLive(store, (state, detail) => {
  const badge = $('connection');
  badge.dataset.state = state;
  badge.textContent = state === 'live' ? 'live' : state === 'connecting' ? 'connecting…' : `offline: ${detail ?? ''}; retrying`;
});
