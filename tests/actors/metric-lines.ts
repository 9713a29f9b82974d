import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TIMING_FIELDS } from '../../actors/training/metrics.ts';

/** A run's metrics.jsonl without the wall-clock fields, so runs compare metric for metric. */
export function metricLines(run: string): Record<string, number>[] {
  return readFileSync(path.join(run, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => {
    const metrics = JSON.parse(line) as Record<string, number>;
    for (const field of TIMING_FIELDS) delete metrics[field];
    return metrics;
  });
}
