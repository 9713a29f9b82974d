/**
 * Horizon schedules (ScalingInter-RL). `fixed:N` keeps one horizon; `scaling:[h0,h1,…]@Δ` uses
 * h0 for learner steps 1..Δ, h1 for Δ+1..2Δ, and the last one after that (DESIGN, reference §5).
 * Parsing returns a value, never throws: `{ ok: false, error }` says what was wrong.
 */

export type Schedule =
  | { readonly kind: 'fixed'; readonly horizon: number }
  | { readonly kind: 'scaling'; readonly horizons: readonly number[]; readonly every: number };

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const MAX_HORIZON = 10_000;
const FORMS = 'expected "fixed:N" or "scaling:[h0,h1,…]@STEPS", e.g. "scaling:[6,13,20]@100"';

function parseCount(text: string, what: string): ParseResult<number> {
  if (!/^\d+$/.test(text.trim())) return { ok: false, error: `${what} "${text}" is not a positive integer` };
  const value = Number(text);
  if (value < 1 || value > MAX_HORIZON) return { ok: false, error: `${what} ${value} is out of range 1..${MAX_HORIZON}` };
  return { ok: true, value };
}

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
  return { ok: false, error: `bad schedule "${text}": ${FORMS}` };
}

/** The horizon that rollouts for learner step `step` (1-based) use. */
export function horizonAt(schedule: Schedule, step: number): number {
  if (schedule.kind === 'fixed') return schedule.horizon;
  const stage = Math.min(Math.max(0, Math.floor((step - 1) / schedule.every)), schedule.horizons.length - 1);
  return schedule.horizons[stage] ?? schedule.horizons[schedule.horizons.length - 1] ?? 1;
}

export function formatSchedule(schedule: Schedule): string {
  return schedule.kind === 'fixed' ? `fixed:${schedule.horizon}` : `scaling:[${schedule.horizons.join(',')}]@${schedule.every}`;
}
