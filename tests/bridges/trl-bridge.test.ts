/**
 * The TRL bridge's pieces (bridges/trl/), checked by tests/bridges/trl_checks.py on the fixture
 * model: the in-process policy server's reply is one actorgym's token client reads
 * (`readCompletionReply`), its log-probs are the ones GRPOTrainer recomputes, it samples from the
 * live weights, reproducibly per seed, refuses bad requests naming the field, and waits while the
 * optimizer holds the weights lock; records map to TRL's fields in prompt order, and malformed
 * batches are refused; with TRL's vLLM (stand-ins: no GPU here) the bridge samples on its server
 * or through its colocated engine. Skipped, saying why, without a Python that has torch, transformers and trl.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

import { readCompletionReply } from '../../policy/llm/token-reply.ts';
import { findPython } from '../support/find-python.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const found = findPython(['torch', 'transformers', 'trl']);
if (found.python === undefined) console.warn(`trl-bridge.test.ts skipped: ${found.reason}`);
const python = found.python;

interface Checks {
  status: number;
  reply: { choices: { prompt_token_ids: number[] }[] };
  maxLogprobDiff: number;
  sameSeedSame: boolean;
  otherSeedDiffers: boolean;
  liveWeights: boolean;
  badPrompt: [number, { error: { message: string } }];
  badId: [number, { error: { message: string } }];
  badTemperature: [number, { error: { message: string } }];
  lock: { waitedWhileLocked: boolean; completedAfterRelease: boolean; status: number };
  records: { order: [string, number][]; split: Record<string, unknown>; errors: Record<string, string | null> };
  policyChoice: { serverModeUrl: string; serverModeStartedServer: boolean; sleepError: string | null;
    colocate: { ids: number[]; logprobs: number[]; finish: string; params: Record<string, unknown>; prompts: unknown } };
}

describe.skipIf(python === undefined)('the TRL bridge\'s policy server and record mapping', () => {
  let checks: Checks;
  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(python!, ['tests/bridges/trl_checks.py', 'tests/bridges/fixtures/qwen2-babyai'],
      { cwd: ROOT, timeout: 120_000, env: { ...process.env, OMP_NUM_THREADS: '1' } });
    checks = JSON.parse(stdout) as Checks;
  }, 150_000);

  it('answers in the form actorgym\'s token client reads, with the log-probs TRL recomputes', () => {
    expect(checks.status).toBe(200);
    const reply = readCompletionReply(checks.reply);
    expect(reply.ids.length).toBeGreaterThan(0);
    expect(reply.logProbs).toHaveLength(reply.ids.length);
    expect(reply.promptIds).toEqual(checks.reply.choices[0]!.prompt_token_ids);
    expect(['stop', 'length']).toContain(reply.finish);
    expect(checks.maxLogprobDiff).toBeLessThan(1e-4);
  });

  it('samples from the live weights, the same ids for the same seed', () => {
    expect(checks.liveWeights).toBe(true);
    expect(checks.sameSeedSame).toBe(true);
    expect(checks.otherSeedDiffers).toBe(true);
  });

  it('refuses bad requests naming the field', () => {
    expect(checks.badPrompt[0]).toBe(400);
    expect(checks.badPrompt[1].error.message).toMatch(/^prompt: /);
    expect(checks.badId[0]).toBe(400);
    expect(checks.badTemperature[1].error.message).toMatch(/^temperature: /);
  });

  it('does not sample while the optimizer holds the weights lock', () => {
    expect(checks.lock).toEqual({ waitedWhileLocked: true, completedAfterRelease: true, status: 200 });
  });

  it('with TRL\'s vLLM: server mode samples on that server, colocate through its engine (stand-ins for vLLM)', () => {
    const choice = checks.policyChoice;
    expect(choice.serverModeUrl).toBe('http://10.0.0.5:8000/v1');
    expect(choice.serverModeStartedServer).toBe(false);
    expect(choice.colocate).toMatchObject({ ids: [7, 2], logprobs: [-0.5, -0.25], finish: 'stop', prompts: [{ prompt_token_ids: [1, 2, 3] }] });
    expect(choice.colocate.params).toMatchObject({ n: 1, temperature: 0.9, max_tokens: 8, logprobs: 0, stop_token_ids: [2], seed: 4 });
    expect(choice.sleepError).toMatch(/^vllm_enable_sleep_mode: /);
  });

  it('maps records to prompt slots in sample order, and refuses short, long or malformed batches', () => {
    expect(checks.records.order).toEqual([['a', 0], ['a', 1], ['b', 0], ['b', 1]]);
    expect(checks.records.split).toMatchObject({ prompt_ids: [1, 2, 3], completion_ids: [9, 4, 5, 9], env_mask: [1, 0, 0, 1], logprobs: [-0.5, 0, 0, -0.25], env_turns: 2 });
    expect(checks.records.errors['missing']).toMatch(/task a: .*fewer episodes/);
    expect(checks.records.errors['extra']).toMatch(/1 episode\(s\) more/);
    expect(checks.records.errors['lengths']).toMatch(/episode a-0: tokens \(7\), mask \(1\)/);
    expect(checks.records.errors['prefix']).toMatch(/do not start with turns\[0\]\.promptIds/);
  });
});
