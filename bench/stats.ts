/** Small helpers shared by benchmarks: medians of repeated runs and a child server to measure against. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export async function repeat(runs: number, once: () => Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await once());
  return values;
}

export interface ChildServer {
  readonly child: ChildProcess;
  /** URLs printed on the server's ready lines, in order. */
  readonly urls: readonly string[];
  stop(): Promise<void>;
}

const BIN = fileURLToPath(new URL('../bin/actorgym.js', import.meta.url));

/** Starts `actorgym serve …` in a child process and waits for its ready lines. */
export function startChildServer(args: readonly string[], readyLines = 1): Promise<ChildServer> {
  return new Promise((resolve, reject) => {
    // The server gets this process's young-generation size, so an A/B of the flag covers both sides.
    const v8Flags = process.execArgv.filter((flag) => flag.startsWith('--max-semi-space-size'));
    const child = spawn(process.execPath, [...v8Flags, BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const urls: string[] = [];
    let out = '';
    let err = '';
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const match of out.matchAll(/ on ((?:ws|http):\/\/\S+)/g)) if (!urls.includes(match[1] as string)) urls.push(match[1] as string);
      if (urls.length >= readyLines) resolve({ child, urls, stop });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready: ${err.trim()}`)));
  });
}

/**
 * CPU time (user + system, µs) a process has used so far, read from `/proc/PID/stat`; undefined
 * where there is no procfs (the benchmark then leaves the server's column empty). Ticks are
 * 10 ms, so read it around runs of a second or more.
 */
export function processCpuMicros(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * CLOCK_TICK_MICROS : undefined;
  } catch {
    return undefined;
  }
}

/** USER_HZ is 100 on every Linux build Node supports. */
const CLOCK_TICK_MICROS = 10_000;
