/**
 * How the event server treats each event type, for slow subscribers and for the replay log.
 *
 * Lossy on purpose: per-turn events are a live view, and a slow dashboard should skip some rather
 * than fall ever further behind. Every other type (`run.*`, `episode.started`,
 * `episode.finished`, `horizon.changed`, and a training run's learner events) is lossless:
 * observers count on each one. Typed as strings so `episode.state` is covered whenever the run
 * emits it.
 */
export const LOSSY_TYPES: ReadonlySet<string> = new Set(['agent.acted', 'env.stepped', 'episode.state']);

export function isLossy(type: string): boolean {
  return LOSSY_TYPES.has(type);
}
