/**
 * The sites' fixed "now". Seeded rows are dated before it and rows written during an episode
 * are dated at it, so pages (hot ranking, "2 days ago") and database dumps never depend on the
 * wall clock and an episode replays byte for byte.
 */

/** 2024-06-01T12:00:00Z in Unix seconds. */
export const SITE_NOW = 1_717_243_200;

/** `2024-05-30` for a Unix time in seconds. */
export function isoDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** `2024-05-30 14:03` for a Unix time in seconds. */
export function isoMinute(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}
