/** `actorgym serve-policy` as a child process, as a user starts it: resolves at its ready line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './run-cli.ts';

export interface ServePolicyProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly modelId: string;
  readonly stderr: () => string;
}

/** Starts the command; resolves with the URL and model id of its ready line. */
export function startServePolicy(args: readonly string[]): Promise<ServePolicyProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve-policy', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /actorgym serve-policy: (\S+) on (http:\/\/\S+)\n/.exec(out);
      if (ready) resolve({ child, modelId: ready[1]!, url: ready[2]!, stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`serve-policy exited with ${code} before it was ready: ${err.trim()}`)));
  });
}
