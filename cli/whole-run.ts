/**
 * The whole run's training time after a resume (issue 35): a resumed session's own clock starts at
 * the resume, so the steps before it are added from the run's metrics.jsonl (each line's rollout
 * and learning seconds; checkpoint writes between steps are not in it).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { TrainingSummary } from '../actors/index.ts';

export function wholeRunSeconds(summary: Pick<TrainingSummary, 'fromStep' | 'trainSeconds' | 'metricsFile'>): number {
  if (summary.fromStep === 0 || summary.metricsFile === undefined || !existsSync(summary.metricsFile)) return summary.trainSeconds;
  return secondsBefore(readFileSync(summary.metricsFile, 'utf8'), summary.fromStep) + summary.trainSeconds;
}

/** Seconds of steps 1..`step` in a metrics.jsonl text; a step written twice (a crash and a resume) counts once, its last line. */
export function secondsBefore(metricsJsonl: string, step: number): number {
  const byStep = new Map<number, number>();
  for (const line of metricsJsonl.split('\n')) {
    if (line.trim() === '') continue;
    const row = parseRow(line);
    if (row !== undefined && row.step <= step) byStep.set(row.step, row.seconds);
  }
  let total = 0;
  for (const seconds of byStep.values()) total += seconds;
  return total;
}

function parseRow(line: string): { step: number; seconds: number } | undefined {
  try {
    const row = JSON.parse(line) as Record<string, unknown>;
    const num = (key: string) => (typeof row[key] === 'number' ? (row[key] as number) : 0);
    return typeof row.step === 'number' ? { step: row.step, seconds: num('rolloutSeconds') + num('learnSeconds') } : undefined;
  } catch {
    return undefined; // a line cut by a crash
  }
}
