/**
 * Issue 40, finding 3, for `sft` and `eval` (train: sigterm.test.ts): SIGTERM stops them as
 * Ctrl-C does. SFT keeps its last whole epoch's checkpoint, exits 130 and `--resume` continues
 * from that epoch; eval keeps what finished in --out, exits 130, and the same command finishes it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFaultServer } from '../../bench/chat-fault-server.ts';
import { runCli } from './run-cli.ts';
import { spawnCli } from './spawn-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-sigterm-sft-eval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SFT_TINY = ['--d-model', '16', '--layers', '1', '--heads', '2', '--ff', '32', '--history-turns', '0', '--learner-threads', '1', '--backend', 'wasm', '--no-dashboard'];
const { ACTORGYM_TOKEN: _unset, ...env } = process.env;

/** Resolves once `file` has at least one line (polled: eval writes no progress without a terminal). */
async function firstLine(file: string, timeoutMs = 30_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (existsSync(file) && readFileSync(file, 'utf8').includes('\n')) return;
  }
  throw new Error(`${file} got no line within ${timeoutMs} ms`);
}

describe('SIGTERM during sft and eval', () => {
  it('sft: keeps the last whole epoch\'s checkpoint, exits 130, and --resume continues from it', async () => {
    const demos = path.join(dir, 'demos.jsonl');
    const out = path.join(dir, 'sft');
    const collected = await runCli(['collect', '--env', 'babyai', '--agent', 'oracle', '--episodes', '8', '--out', demos], 60_000, env);
    expect(collected.code, collected.stderr).toBe(0);
    const cli = spawnCli(['sft', '--env', 'babyai', '--demos', demos, '--epochs', '500', '--eval-episodes', '0', '--out', out, ...SFT_TINY], { env });
    await cli.waitForStderr(/epoch 1 loss /);
    cli.child.kill('SIGTERM');
    const stopped = await cli.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain("stopping at the next update (the last whole epoch's checkpoint is kept; continue with --resume) (SIGTERM received; another SIGTERM or Ctrl-C quits at once)");
    const epoch = (JSON.parse(readFileSync(path.join(out, 'checkpoint', 'manifest.json'), 'utf8')) as { step: number }).step;
    expect(epoch).toBeGreaterThanOrEqual(1);
    expect(epoch).toBeLessThan(500);
    expect(stopped.stdout).toContain(`resume: npx actorgym sft --env babyai --demos ${demos} --resume ${out}`);

    const resumed = await runCli(['sft', '--env', 'babyai', '--demos', demos, '--epochs', String(epoch + 1), '--eval-episodes', '0', '--resume', out, '--json', ...SFT_TINY], 60_000, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'done', fromEpoch: epoch, epochs: epoch + 1 });
  }, 120_000);

  it('eval --out: keeps what finished, exits 130, and the same command finishes the evaluation', async () => {
    // An LLM endpoint that takes 150 ms a reply, so the evaluation is still running when the signal comes.
    const server = await startFaultServer({ latencyMs: 150, content: () => 'Thought: ahead.\nAction: move forward' });
    try {
      const out = path.join(dir, 'eval');
      const args = ['eval', '--agent', 'openai:m', '--env', 'babyai', '--tasks', '3', '--samples', '2', '--horizon', '2', '--concurrency', '1',
        '--base-url', server.baseURL, '--api-key', 'k', '--out', out, '--json'];
      const cli = spawnCli(args, { env });
      await firstLine(path.join(out, 'episodes.jsonl'));
      cli.child.kill('SIGTERM');
      const stopped = await cli.done;
      expect(stopped.code, stopped.stderr).toBe(130);
      const done = Number(/interrupted: (\d+) of 6 \(task, sample\) pairs have a result in .*; re-run the same command to finish/.exec(stopped.stderr)?.[1]);
      expect(done).toBeGreaterThanOrEqual(1);
      expect(done).toBeLessThan(6);

      const again = await runCli(args, 60_000, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`resuming ${out}: ${done} of 6 (task, sample) pairs done, running ${6 - done}`);
      expect(JSON.parse(again.stdout)).toMatchObject({ complete: true, missing: 0 });
    } finally {
      await server.close();
    }
  }, 120_000);
});
