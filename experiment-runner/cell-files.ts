/**
 * A cell's bookkeeping, kept in its run directory next to what `actorgym train` writes:
 *
 *   cell.json       what the cell is (env, algo, schedule, seed, training flags): a re-run with a
 *                   changed file must not silently continue a different configuration
 *   attempts.jsonl  one line when an attempt starts, a heartbeat at most every 30 s, one when it
 *                   ends: the cell's wall time survives kills and resumes
 *   train.log       the child's stderr, appended over attempts
 *   result.json     written when a run finished (status done, evaluated): the cell is done
 *
 * A cell is done when result.json covers the experiment's steps, resumable when it has a
 * checkpoint, fresh otherwise.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { locateCheckpoint } from '../learner/checkpoint/read.ts';
import type { Cell } from './spec.ts';

export interface CellResult {
  readonly id: string;
  readonly scheduleName: string;
  readonly schedule: string;
  readonly seed: number;
  readonly steps: number;
  readonly testSuccessRate: number | null;
  readonly testMeanTurns: number | null;
  readonly testMeanReward: number | null;
  readonly testEpisodes: number | null;
  readonly wallSeconds: number;
  readonly attempts: number;
  readonly backend: string;
}

export type CellStatus =
  | { readonly kind: 'done'; readonly result: CellResult }
  | { readonly kind: 'resume'; readonly fromStep: number }
  | { readonly kind: 'fresh' };

export const HEARTBEAT_MS = 30_000;

const file = (cell: Cell, name: string): string => path.join(cell.dir, name);

function readJson<T>(location: string): T | undefined {
  if (!existsSync(location)) return undefined;
  try {
    return JSON.parse(readFileSync(location, 'utf8')) as T;
  } catch {
    return undefined; // cut short by a kill: treated as absent
  }
}

export function readResult(cell: Cell): CellResult | undefined {
  return readJson<CellResult>(file(cell, 'result.json'));
}

export function writeResult(cell: Cell, result: CellResult): void {
  writeFileSync(file(cell, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
}

/** Throws when the cell directory holds a run of another configuration. */
export function checkIdentity(cell: Cell, identity: Record<string, unknown>): void {
  const saved = readJson<Record<string, unknown>>(file(cell, 'cell.json'));
  if (saved !== undefined && JSON.stringify(saved) !== JSON.stringify(identity)) {
    throw new Error(`${cell.id}: ${cell.dir} holds a run of another configuration (cell.json: ${JSON.stringify(saved)}; now: ${JSON.stringify(identity)}). ` +
      'Rename the schedule, use another --out, or delete that directory.');
  }
}

export function writeIdentity(cell: Cell, identity: Record<string, unknown>): void {
  mkdirSync(cell.dir, { recursive: true });
  writeFileSync(file(cell, 'cell.json'), `${JSON.stringify(identity)}\n`);
}

export async function cellStatus(cell: Cell, steps: number): Promise<CellStatus> {
  const result = readResult(cell);
  if (result && result.steps >= steps) return { kind: 'done', result };
  try {
    const dir = await locateCheckpoint(cell.dir);
    const manifest = readJson<{ step?: number }>(path.join(dir, 'manifest.json'));
    return { kind: 'resume', fromStep: manifest?.step ?? 0 };
  } catch {
    return { kind: 'fresh' };
  }
}

type AttemptLine = { event: 'started' | 'alive' | 'ended'; at: number; code?: number | null };

export function logAttempt(cell: Cell, line: AttemptLine): void {
  appendFileSync(file(cell, 'attempts.jsonl'), `${JSON.stringify(line)}\n`);
}

export function appendLog(cell: Cell, text: string): void {
  appendFileSync(file(cell, 'train.log'), text);
}

/** Wall time over all attempts; a killed attempt counts up to its last heartbeat. */
export function attemptsWall(cell: Cell): { seconds: number; attempts: number } {
  const location = file(cell, 'attempts.jsonl');
  if (!existsSync(location)) return { seconds: 0, attempts: 0 };
  let ms = 0;
  let attempts = 0;
  let open: { started: number; last: number } | undefined;
  for (const raw of readFileSync(location, 'utf8').split('\n')) {
    let line: AttemptLine;
    try {
      line = JSON.parse(raw) as AttemptLine;
    } catch {
      continue;
    }
    if (line.event === 'started') {
      if (open) ms += open.last - open.started;
      open = { started: line.at, last: line.at };
      attempts += 1;
    } else if (open) {
      open.last = line.at;
      if (line.event === 'ended') {
        ms += open.last - open.started;
        open = undefined;
      }
    }
  }
  if (open) ms += open.last - open.started;
  return { seconds: ms / 1000, attempts };
}
