import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBrowserTests } from './fixtures/chromium.ts';
import { startFixtureServer, type FixtureServer } from '../../../envs/web/fixtures/fixture-server.ts';

const CHILD = new URL('./browser-signals-child.ts', import.meta.url).pathname;

/** Starts the child and resolves with it once its session is open. */
function startChild(url: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<number[]>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /ready \d+ ([\d,]+)/.exec(out);
      if (match) resolve(match[1]!.split(',').map(Number));
    });
    void exited.then(() => reject(new Error(`the child exited before it was ready: ${stderr}`)));
  });
  return { child, ready, exited };
}

const gone = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 100; i++) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
};

describe.skipIf(!runBrowserTests)('a process with a web session and a signal', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });

  // Playwright's default SIGTERM handler closed the browser and left the process running (the
  // host relaunched the browser and the rollout went on); SIGTERM must end it, browser and all.
  it('SIGTERM ends the process and its Chromium', async () => {
    const { child, ready, exited } = startChild(`${server.url}/index.html`);
    const browsers = await ready;
    expect(browsers.length).toBe(1);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const { signal } = await exited;
    clearTimeout(timer);
    expect(signal).toBe('SIGTERM');
    expect(await gone(browsers[0]!)).toBe(true);
  });
});
