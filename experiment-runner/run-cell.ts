/**
 * Runs one cell as an `actorgym train … --json` child process: fresh, or `--resume` from the
 * cell's checkpoint. Its stderr goes to train.log and, line by line, to `onProgress` (the CLI
 * prints one `step N/M horizon H success S%` line per learner step when stderr is not a terminal);
 * its stdout is the JSON summary. SIGINT (`stop`) makes the child stop after its current step
 * with a checkpoint, so the cell resumes later.
 */
import { spawn } from 'node:child_process';
import { ACTORGYM_BIN, cellIdentity, freshArgs, resumeArgs } from './cell-args.ts';
import { appendLog, attemptsWall, HEARTBEAT_MS, logAttempt, writeIdentity, writeResult, type CellResult, type CellStatus } from './cell-files.ts';
import type { Cell, Experiment } from './spec.ts';

export interface CellProgress {
  readonly step: number;
  readonly steps: number;
  readonly horizon: number;
  readonly successRate: number;
}

export type CellOutcome =
  | { readonly kind: 'finished'; readonly result: CellResult }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'failed'; readonly error: string };

export interface RunningCell {
  readonly outcome: Promise<CellOutcome>;
  /** Asks the child to stop after its current learner step (SIGINT). */
  stop(): void;
  /** Ends the child at once (SIGKILL); it resumes from its last checkpoint. */
  kill(): void;
}

const PROGRESS = /^step (\d+)\/(\d+) horizon (\d+) success ([\d.]+)%/;

/** The summary object in the child's stdout (pretty-printed JSON, possibly after other output). */
function parseSummary(stdout: string): Record<string, unknown> | undefined {
  const start = stdout.search(/^\{/m);
  if (start < 0) return undefined;
  try {
    return JSON.parse(stdout.slice(start)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export function runCell(experiment: Experiment, cell: Cell, status: Exclude<CellStatus, { kind: 'done' }>, onProgress: (p: CellProgress) => void): RunningCell {
  writeIdentity(cell, cellIdentity(experiment, cell));
  const args = status.kind === 'resume' ? resumeArgs(experiment, cell) : freshArgs(experiment, cell);
  appendLog(cell, `\n# ${new Date().toISOString()} actorgym ${args.join(' ')}\n`);
  logAttempt(cell, { event: 'started', at: Date.now() });
  // Its own process group: a Ctrl-C at the terminal reaches the runner only, which forwards exactly
  // one SIGINT (a second one would kill the child before it checkpoints).
  const child = spawn(process.execPath, [ACTORGYM_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let pending = '';
  let lastError = '';
  let lastBeat = Date.now();
  let stopping = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    appendLog(cell, chunk);
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = PROGRESS.exec(line);
      if (match) onProgress({ step: Number(match[1]), steps: Number(match[2]), horizon: Number(match[3]), successRate: Number(match[4]) / 100 });
      if (line.startsWith('actorgym: error:')) lastError = line.slice('actorgym: error:'.length).trim();
    }
    if (Date.now() - lastBeat >= HEARTBEAT_MS) {
      lastBeat = Date.now();
      logAttempt(cell, { event: 'alive', at: lastBeat });
    }
  });

  const outcome = new Promise<CellOutcome>((resolve) => {
    child.on('error', (error) => {
      logAttempt(cell, { event: 'ended', at: Date.now(), code: null });
      resolve({ kind: 'failed', error: `could not start actorgym: ${error.message}` });
    });
    child.on('close', (code) => {
      logAttempt(cell, { event: 'ended', at: Date.now(), code });
      const summary = parseSummary(stdout);
      if (code === 0 && summary?.status === 'done') {
        const wall = attemptsWall(cell);
        const evaluation = summary.evaluation as { episodes?: unknown } | undefined;
        const result: CellResult = {
          id: cell.id, scheduleName: cell.scheduleName, schedule: cell.schedule, seed: cell.seed,
          steps: numberOrNull(summary.steps) ?? experiment.steps,
          testSuccessRate: numberOrNull(summary.testSuccessRate),
          testMeanTurns: numberOrNull(summary.testMeanTurns),
          testMeanReward: numberOrNull(summary.testMeanReward),
          testEpisodes: numberOrNull(evaluation?.episodes),
          wallSeconds: wall.seconds,
          attempts: wall.attempts,
          backend: typeof summary.backend === 'string' ? summary.backend : 'unknown',
        };
        writeResult(cell, result);
        resolve({ kind: 'finished', result });
      } else if ((code === 0 && summary?.status === 'stopped') || (stopping && code !== 1)) {
        // Stopped on request (a SIGINT before the CLI's handler was installed ends it by signal).
        resolve({ kind: 'stopped' });
      } else {
        resolve({ kind: 'failed', error: lastError || `actorgym train exited with code ${String(code)} (see ${cell.dir}/train.log)` });
      }
    });
  });
  return {
    outcome,
    stop: () => {
      if (stopping) return;
      stopping = true;
      child.kill('SIGINT');
    },
    kill: () => {
      stopping = true;
      child.kill('SIGKILL');
    },
  };
}
