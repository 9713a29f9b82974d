/**
 * Horizon schedules (ScalingInter-RL). `fixed:N` keeps one horizon; `scaling:[h0,h1,…]@Δ` uses
 * h0 for learner steps 1..Δ, h1 for Δ+1..2Δ, and the last one after that (DESIGN, reference §5).
 * `adaptive:min=A,max=B[,step=S,window=W,trunc=T]` is closed-loop: it starts at A and the
 * curriculum machine moves the horizon within [A, B] by S from the signals of the last W learner
 * steps (machines/adaptive-horizon.ts; docs/curriculum.md).
 * Parsing returns a value, never throws: `{ ok: false, error }` says what was wrong.
 * `formatSchedule` writes the canonical form, which parses back to the same value.
 */

export interface AdaptiveSchedule {
  readonly kind: 'adaptive';
  readonly min: number;
  readonly max: number;
  /** Horizon change of one raise or step back. Default ⌈(max − min) / 2⌉ (three levels, as the paper's). */
  readonly step: number;
  /** Learner steps of signals a decision needs at the current horizon. Default 5. */
  readonly window: number;
  /** Truncation share (truncated / finished episodes) from which the horizon counts as binding. Default 0.2. */
  readonly trunc: number;
}

/**
 * A horizon schedule: `fixed:N`, `scaling:[h0,h1,…]@Δ` or `adaptive:min=A,max=B,…`
 * (docs/curriculum.md), as `parseSchedule` reads it.
 */
export type Schedule =
  | { readonly kind: 'fixed'; readonly horizon: number }
  | { readonly kind: 'scaling'; readonly horizons: readonly number[]; readonly every: number }
  | AdaptiveSchedule;

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const MAX_HORIZON = 10_000;
const FORMS = 'expected "fixed:N" or "scaling:[h0,h1,…]@STEPS" or "adaptive:min=A,max=B[,step=S,window=W,trunc=T]", e.g. "scaling:[6,13,20]@100"';
export const ADAPTIVE_DEFAULTS = { window: 5, trunc: 0.2 } as const;
const ADAPTIVE_KEYS = ['min', 'max', 'step', 'window', 'trunc'] as const;

function parseCount(text: string, what: string): ParseResult<number> {
  if (!/^\d+$/.test(text.trim())) return { ok: false, error: `${what} "${text}" is not a positive integer` };
  const value = Number(text);
  if (value < 1 || value > MAX_HORIZON) return { ok: false, error: `${what} ${value} is out of range 1..${MAX_HORIZON}` };
  return { ok: true, value };
}

function parseShare(text: string, what: string): ParseResult<number> {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) return { ok: false, error: `${what} "${text}" is not a number in 0..1` };
  return { ok: true, value };
}

function parseAdaptive(body: string): ParseResult<AdaptiveSchedule> {
  const given: Partial<Record<(typeof ADAPTIVE_KEYS)[number], string>> = {};
  for (const part of body.split(',')) {
    const match = /^\s*(\w+)\s*=\s*(.*?)\s*$/.exec(part);
    if (!match) return { ok: false, error: `adaptive schedule: "${part}" is not KEY=VALUE (keys: ${ADAPTIVE_KEYS.join(', ')})` };
    const key = match[1] as (typeof ADAPTIVE_KEYS)[number];
    if (!ADAPTIVE_KEYS.includes(key)) return { ok: false, error: `adaptive schedule: unknown key "${match[1]}" (keys: ${ADAPTIVE_KEYS.join(', ')})` };
    if (key in given) return { ok: false, error: `adaptive schedule: "${key}" given twice` };
    given[key] = match[2] ?? '';
  }
  if (given.min === undefined || given.max === undefined) return { ok: false, error: 'adaptive schedule needs min=… and max=…, e.g. "adaptive:min=6,max=20"' };
  const min = parseCount(given.min, 'min horizon');
  if (!min.ok) return min;
  const max = parseCount(given.max, 'max horizon');
  if (!max.ok) return max;
  if (max.value < min.value) return { ok: false, error: `adaptive schedule: max ${max.value} is below min ${min.value}` };
  const step = given.step !== undefined ? parseCount(given.step, 'step') : { ok: true as const, value: Math.max(1, Math.ceil((max.value - min.value) / 2)) };
  if (!step.ok) return step;
  const window = given.window !== undefined ? parseCount(given.window, 'window') : { ok: true as const, value: ADAPTIVE_DEFAULTS.window };
  if (!window.ok) return window;
  // A trend needs two points; a window of 1 could never see one.
  if (window.value < 2) return { ok: false, error: 'adaptive schedule: window must be at least 2 learner steps' };
  const trunc = given.trunc !== undefined ? parseShare(given.trunc, 'trunc') : { ok: true as const, value: ADAPTIVE_DEFAULTS.trunc };
  if (!trunc.ok) return trunc;
  return { ok: true, value: { kind: 'adaptive', min: min.value, max: max.value, step: step.value, window: window.value, trunc: trunc.value } };
}

/**
 * Reads a schedule's text (`fixed:20`, `scaling:[6,10,20]@10`, `adaptive:min=6,max=20`); returns
 * `{ ok: false, error }` saying what was wrong instead of throwing.
 */
export function parseSchedule(text: string): ParseResult<Schedule> {
  const source = text.trim();
  const fixed = /^fixed:(.+)$/.exec(source);
  if (fixed) {
    const horizon = parseCount(fixed[1] ?? '', 'horizon');
    return horizon.ok ? { ok: true, value: { kind: 'fixed', horizon: horizon.value } } : horizon;
  }
  const scaling = /^scaling:\[([^\]]*)\]@(.+)$/.exec(source);
  if (scaling) {
    const horizons: number[] = [];
    for (const part of (scaling[1] ?? '').split(',')) {
      const horizon = parseCount(part, 'horizon');
      if (!horizon.ok) return horizon;
      horizons.push(horizon.value);
    }
    const every = parseCount(scaling[2] ?? '', 'stage length');
    if (!every.ok) return every;
    return { ok: true, value: { kind: 'scaling', horizons, every: every.value } };
  }
  const adaptive = /^adaptive:(.+)$/.exec(source);
  if (adaptive) return parseAdaptive(adaptive[1] ?? '');
  return { ok: false, error: `bad schedule "${text}": ${FORMS}` };
}

/**
 * The horizon that rollouts for learner step `step` (1-based) use, for the open-loop schedules.
 * An adaptive schedule's horizon depends on the run, so the curriculum machine owns it; this
 * returns its starting horizon, `min`.
 */
export function horizonAt(schedule: Schedule, step: number): number {
  if (schedule.kind === 'fixed') return schedule.horizon;
  if (schedule.kind === 'adaptive') return schedule.min;
  const stage = Math.min(Math.max(0, Math.floor((step - 1) / schedule.every)), schedule.horizons.length - 1);
  return schedule.horizons[stage] ?? schedule.horizons[schedule.horizons.length - 1] ?? 1;
}

/** The canonical text of a schedule; `parseSchedule` reads it back to the same value. */
export function formatSchedule(schedule: Schedule): string {
  switch (schedule.kind) {
    case 'fixed':
      return `fixed:${schedule.horizon}`;
    case 'scaling':
      return `scaling:[${schedule.horizons.join(',')}]@${schedule.every}`;
    case 'adaptive':
      return `adaptive:min=${schedule.min},max=${schedule.max},step=${schedule.step},window=${schedule.window},trunc=${schedule.trunc}`;
  }
}
