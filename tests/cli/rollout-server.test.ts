/**
 * Issue 38: `actorgym rollout-server` as a user starts it: its help shows the API, the process
 * serves a batch against the scripted completions server with its --token, and SIGTERM drains it
 * and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { TokenRecordSchema } from '../../demos/token-record.ts';
import { BIN, runCli } from './run-cli.ts';
import { policyOf, postBatch, startBabyAiScripted } from '../servers/rollout-server/service-fixture.ts';

const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

function startCommand(args: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'rollout-server', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /actorgym rollout-server: listening on (http:\/\/\S+)\n/.exec(out);
      if (ready) resolve({ child, url: ready[1]! });
    });
    child.once('exit', (code) => reject(new Error(`rollout-server exited with ${code} before it was ready: ${err.trim()}`)));
  });
}

describe('actorgym rollout-server', () => {
  it('--help shows the API', async () => {
    const { code, stdout } = await runCli(['rollout-server', '--help']);
    expect(code).toBe(0);
    for (const words of ['POST /v1/rollouts', 'application/x-ndjson', 'DELETE /v1/rollouts/{id}', '--max-concurrency', '--remote', 'groupSize', 'curriculum']) expect(stdout).toContain(words);
  });

  it('serves a batch with its token, then drains on SIGTERM and exits 0', async () => {
    const llm = await startBabyAiScripted();
    try {
      const { child, url } = await startCommand(['--port', '0', '--token', 'tok', '--log-json']);
      const body = { env: 'babyai', count: 2, groupSize: 2, horizon: 2, policy: policyOf(llm.baseURL) };
      expect((await postBatch(url, body)).status).toBe(401);
      const reply = await postBatch(url, body, 'tok');
      const records = reply.lines.filter((l) => l.type === 'record').map((l) => TokenRecordSchema.parse(l.record));
      expect(records).toHaveLength(4);
      expect(reply.lines.at(-1)!.type).toBe('done');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await llm.close();
    }
  });
});
