/**
 * The real `actorgym` entry point in a child process whose output a test can watch while it runs,
 * to send it Ctrl-C (SIGINT) at a chosen moment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, type CliResult } from './run-cli.ts';

export interface LiveCli {
  readonly child: ChildProcess;
  /** Resolves when stderr has matched `pattern` (rejects if the process ends first). */
  waitForStderr(pattern: RegExp): Promise<void>;
  readonly done: Promise<CliResult>;
}

export function spawnCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): LiveCli {
  const child = spawn(process.execPath, [BIN, ...args], { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters.splice(0)) {
      if (waiter.pattern.test(stderr)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
  return {
    child,
    done,
    waitForStderr: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(stderr)) return resolve();
        waiters.push({ pattern, resolve });
        void done.then(() => reject(new Error(`the command ended before stderr matched ${pattern}:\n${stderr}`)));
      }),
  };
}
