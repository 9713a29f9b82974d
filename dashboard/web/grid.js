// @ts-check
/**
 * Draws a BabyAI grid snapshot (BabyAIEnv.snapshot(): minigrid's two characters per cell, e.g.
 * `WG` wall, `AR` red ball, `LB` locked blue door, `__` open door, `>>` the agent facing east)
 * on a canvas, in minigrid's own look. `colors` (full names per cell, when the server could
 * read them) settles `G`, which minigrid uses for both green and grey.
 */

const COLORS = { red: '#ff0000', green: '#00c000', blue: '#1e64ff', purple: '#7027c3', yellow: '#ffd700', grey: '#8c8c8c' };
const LETTER = { R: 'red', G: 'green', B: 'blue', P: 'purple', Y: 'yellow' };
const AGENT_DIRS = { '>>': 0, VV: 1, '<<': 2, '^^': 3 };

/**
 * @typedef {{ width: number, height: number, rows: string[], colors?: (string | null)[][],
 *   agent?: { x: number, y: number, dir: number }, carrying?: { type: string, color: string } | null, mission?: string }} Picture
 */

/** @param {unknown} picture @returns {picture is Picture} */
export function isGridPicture(picture) {
  const p = /** @type {any} */ (picture);
  return !!p && typeof p.width === 'number' && typeof p.height === 'number' && Array.isArray(p.rows);
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {Picture} picture
 * @param {number} maxSize largest side in CSS pixels
 */
export function drawGrid(canvas, picture, maxSize = 440) {
  const cell = Math.max(8, Math.floor(maxSize / Math.max(picture.width, picture.height)));
  const ratio = window.devicePixelRatio || 1;
  canvas.width = picture.width * cell * ratio;
  canvas.height = picture.height * cell * ratio;
  canvas.style.width = `${picture.width * cell}px`;
  canvas.style.height = `${picture.height * cell}px`;
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, picture.width * cell, picture.height * cell);
  for (let y = 0; y < picture.height; y++) {
    const row = picture.rows[y] ?? '';
    for (let x = 0; x < picture.width; x++) {
      const code = row.slice(2 * x, 2 * x + 2);
      const color = colorOf(picture, x, y, code[1] ?? '');
      drawCell(ctx, code, color, x * cell, y * cell, cell);
    }
  }
  // Grid lines, as minigrid draws them.
  ctx.strokeStyle = 'rgba(90,90,90,0.6)';
  ctx.lineWidth = 1;
  for (let x = 0; x <= picture.width; x++) line(ctx, x * cell, 0, x * cell, picture.height * cell);
  for (let y = 0; y <= picture.height; y++) line(ctx, 0, y * cell, picture.width * cell, y * cell);
}

/** @param {Picture} p @param {number} x @param {number} y @param {string} letter */
function colorOf(p, x, y, letter) {
  const named = p.colors?.[y]?.[x];
  if (named && named in COLORS) return COLORS[/** @type {keyof typeof COLORS} */ (named)];
  const name = LETTER[/** @type {keyof typeof LETTER} */ (letter)];
  return name ? COLORS[/** @type {keyof typeof COLORS} */ (name)] : COLORS.grey;
}

/**
 * @param {CanvasRenderingContext2D} ctx @param {string} code @param {string} color
 * @param {number} x0 @param {number} y0 @param {number} s
 */
function drawCell(ctx, code, color, x0, y0, s) {
  const cx = x0 + s / 2;
  const cy = y0 + s / 2;
  if (code in AGENT_DIRS) return drawAgent(ctx, cx, cy, s, AGENT_DIRS[/** @type {keyof typeof AGENT_DIRS} */ (code)]);
  const kind = code[0];
  if (code === 'WG') {
    ctx.fillStyle = '#7f7f7f';
    ctx.fillRect(x0, y0, s, s);
  } else if (code === '__') {
    // Open door: only its frame.
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(1, s / 16);
    ctx.strokeRect(x0 + 1.5, y0 + 1.5, s - 3, s - 3);
  } else if (kind === 'D' || kind === 'L') {
    ctx.fillStyle = kind === 'L' ? color : '#000';
    ctx.fillRect(x0 + 1, y0 + 1, s - 2, s - 2);
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(1, s / 14);
    ctx.strokeRect(x0 + 2, y0 + 2, s - 4, s - 4);
    if (kind === 'D') {
      ctx.fillStyle = color;
      circle(ctx, x0 + 0.75 * s, cy, s * 0.08);
    } else {
      ctx.fillStyle = '#000';
      ctx.fillRect(x0 + 0.6 * s, cy - s * 0.03, s * 0.25, s * 0.06);
    }
  } else if (kind === 'A') {
    ctx.fillStyle = color;
    circle(ctx, cx, cy, s * 0.31);
  } else if (kind === 'B') {
    ctx.strokeStyle = color;
    ctx.lineWidth = Math.max(1.5, s / 10);
    ctx.strokeRect(x0 + s * 0.15, y0 + s * 0.15, s * 0.7, s * 0.7);
    line(ctx, x0 + s * 0.15, cy, x0 + s * 0.85, cy);
  } else if (kind === 'K') {
    ctx.fillStyle = color;
    ctx.fillRect(cx - s * 0.05, cy - s * 0.1, s * 0.12, s * 0.4);
    ctx.fillRect(cx + s * 0.05, cy + s * 0.12, s * 0.12, s * 0.06);
    ctx.fillRect(cx + s * 0.05, cy + s * 0.22, s * 0.12, s * 0.06);
    circle(ctx, cx + s * 0.01, cy - s * 0.18, s * 0.16);
    ctx.fillStyle = '#000';
    circle(ctx, cx + s * 0.01, cy - s * 0.18, s * 0.07);
  }
}

/** A red triangle pointing where the agent faces (0 east, 1 south, 2 west, 3 north). */
function drawAgent(ctx, cx, cy, s, dir) {
  const angle = (dir * Math.PI) / 2;
  const point = (/** @type {number} */ dx, /** @type {number} */ dy) => [cx + dx * Math.cos(angle) - dy * Math.sin(angle), cy + dx * Math.sin(angle) + dy * Math.cos(angle)];
  const [ax, ay] = point(s * 0.36, 0);
  const [bx, by] = point(-s * 0.3, s * 0.28);
  const [qx, qy] = point(-s * 0.3, -s * 0.28);
  ctx.fillStyle = '#ff3030';
  ctx.beginPath();
  ctx.moveTo(ax, ay);
  ctx.lineTo(bx, by);
  ctx.lineTo(qx, qy);
  ctx.closePath();
  ctx.fill();
}

/** @param {CanvasRenderingContext2D} ctx @param {number} x @param {number} y @param {number} r */
function circle(ctx, x, y, r) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fill();
}

/** @param {CanvasRenderingContext2D} ctx @param {number} x1 @param {number} y1 @param {number} x2 @param {number} y2 */
function line(ctx, x1, y1, x2, y2) {
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x2, y2);
  ctx.stroke();
}
