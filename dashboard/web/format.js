// @ts-check
/** Small helpers shared by the views: formatting, run colours, DOM building. */

/** Distinguishable on white, in the order runs are added. */
export const RUN_COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];

/** @param {number} index */
export const runColor = (index) => RUN_COLORS[index % RUN_COLORS.length];

/** @param {number | null | undefined} x */
export function number(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2);
  if (Number.isInteger(x)) return String(x);
  return a >= 100 ? x.toFixed(0) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
}

/** @param {number | null | undefined} x */
export const percent = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(100 * x).toFixed(1)}%`);

/**
 * Whole seconds: the board shows how long an episode has been stuck, and a text that changes ten
 * times a second on every row would cost the page a layout each time for nothing.
 * @param {number} ms
 */
export function duration(ms) {
  if (!(ms >= 0)) return '–';
  if (ms < 1_000) return '<1 s';
  if (ms < 120_000) return `${Math.floor(ms / 1000)} s`;
  const m = Math.floor(ms / 60_000);
  return m < 120 ? `${m} min ${Math.floor((ms % 60_000) / 1000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * Creates an element with attributes and children.
 * @param {string} tag
 * @param {Record<string, string | number | boolean | undefined>} [attrs]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

/** Sets text only when it changed: the board rewrites many cells ten times a second. @param {Element} node @param {string} text */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * Fetches JSON from the dashboard's API; rejects with the server's `code: message`.
 * @param {string} path
 */
export async function getJson(path) {
  const response = await fetch(path, { cache: 'no-store' });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${response.status}`);
  return body;
}
