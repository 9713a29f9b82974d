/** Small helpers shared by benchmarks: medians of repeated runs and a child server to measure against. */
import { spawn, type ChildProcess } from 'node:child_process';
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
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
