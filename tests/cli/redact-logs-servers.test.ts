/**
 * Issue 40, finding 6, for the two servers redact-logs.test.ts leaves out: the learner server
 * (`actorgym learner --worker-log-json`) and the policy server (`actorgym serve-policy
 * --log-json`, which logged nothing before: refused requests are now logged, redacted). Each gets
 * every refused request kind, and its whole output is searched for the token. The learner's
 * Ctrl-C prints the command that continues the run: with the token's variable, not its value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import { freshModels, toCheckpoint } from '../../learner/run-models.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { selectBackend } from '../../policy/backend.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { expectNoToken, probe, refusedLines, startServed, stopAll, TOKEN, type Served } from './redact-probe.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'actorgym-redact-servers-'));
const served: Served[] = [];
afterAll(() => {
  for (const s of served) s.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '128', '--backend', 'wasm', '--learner-threads', '1', '--no-dashboard'];

beforeAll(async () => {
  // A tiny checkpoint for serve-policy, written as tests/cli/serve-policy.test.ts writes one.
  await selectBackend('cpu');
  const config = resolveConfig('babyai', { steps: 2, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 128 } });
  const tokenizer = Tokenizer.fromCorpus(['Your goal: go to the red ball', 'turn left', 'turn right', 'move forward'], { maxVocab: 128, minCount: 1 });
  const models = freshModels(tokenizer, config);
  const data = await toCheckpoint(models, { step: 2, policyVersion: 2, curriculum: { completedSteps: 2, horizon: 6 }, rng: { seed: 0, derivedFrom: 'seed and step' }, config });
  await writeCheckpoint(path.join(dir, 'policy', 'checkpoint'), data);
  models.dispose();
}, 60_000);

describe('no token in the learner\'s or the policy server\'s output (issue 40, finding 6)', () => {
  it('every refused request kind, through the CLI', async () => {
    const servers = await Promise.all([
      startServed(served, 'learner', ['learner', '--env', 'babyai', '--steps', '1000', '--eval-episodes', '0', '--port', '0', '--worker-token', TOKEN, '--worker-log-json', '--out', path.join(dir, 'learner'), ...TINY],
        /listening for workers on ws:\/\/[^:]+:(\d+)/),
      startServed(served, 'serve-policy', ['serve-policy', '--checkpoint', path.join(dir, 'policy'), '--port', '0', '--backend', 'cpu', '--token', TOKEN, '--log-json'],
        /serve-policy: \S+ on http:\/\/[^:]+:(\d+)/),
    ]);
    const statuses = await probe(servers.map((s) => s.port));
    expect(statuses.filter((s) => / 101 /.test(s))).toEqual([]);
    await stopAll(servers);

    const logs = expectNoToken(servers);
    expect(servers[0]?.output()).toContain('continue it with:\n  npx actorgym learner --env babyai --steps 1000 --eval-episodes 0 --port 0 --worker-token "$ACTORGYM_TOKEN" --worker-log-json');
    // The loggers did log the refusals (so the search above had something to search).
    expect(refusedLines(logs, 'learner').length).toBeGreaterThanOrEqual(3);
    const policy = refusedLines(logs, 'policy');
    expect(policy.length).toBeGreaterThanOrEqual(8);
    expect(policy.join('\n')).toContain('[redacted]');
    expect(policy.join('\n')).toContain('"reason":"invalid_api_key"');
    expect(policy.join('\n')).toContain('"reason":"forbidden_origin"');
  }, 120_000);
});
