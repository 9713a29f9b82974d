/**
 * Issue 38: token records through the real entry point — `collect --format tokens` against the
 * scripted server (GRPO groups and samples), and `rollout --agent openai:MODEL --tokenizer hf:DIR
 * --format tokens` against our own `serve-policy` on the tiny fixture model, where every recorded
 * log-prob is checked against the model scoring the recorded ids.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenRecords } from '../../demos/token-record.ts';
import { getEnv } from '../../envs/index.ts';
import { pickTasks } from '../../envs/pick-tasks.ts';
import { selectBackend } from '../../policy/backend.ts';
import { sequenceLogProbs } from '../../policy/hf/sequence-log-probs.ts';
import { loadServedHf, startHfPolicyServer, type HfServedModel, type LoadedServedHf } from '../../servers/policy-server/hf/index.ts';
import type { PolicyServer } from '../../servers/policy-server/policy-server.ts';
import { startScriptedServer } from '../policy/llm/scripted-completions-server.ts';
import { runCli } from './run-cli.ts';

const FIXTURE = 'tests/fixtures/hf/serve-tiny';
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-token-records-serve-'));
let hf: LoadedServedHf;
let server: PolicyServer<HfServedModel>;

beforeAll(async () => {
  await selectBackend('wasm');
  hf = await loadServedHf(FIXTURE);
  server = await startHfPolicyServer({ port: 0, model: hf.model, tokenizer: hf.tokenizer, modelId: hf.modelId, aliases: hf.aliases });
}, 60_000);

afterAll(async () => {
  await server?.close();
  hf?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('token records out (issue 38)', () => {
  it('collect --format tokens: one record per episode, grouped by task (group) and sample, in task then sample order', async () => {
    const scripted = await startScriptedServer({ tokenizer: hf.tokenizer, reply: () => 'Thought: go\nAction: turn left' });
    try {
      const out = path.join(dir, 'collect.jsonl');
      const result = await runCli(['collect', '--env', 'babyai', '--agent', 'openai:tiny', '--tokenizer', `hf:${FIXTURE}`, '--base-url', scripted.baseURL,
        '--episodes', '2', '--samples', '2', '--horizon', '2', '--format', 'tokens', '--out', out, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ format: 'tokens', written: 4, driftTurns: 0 });
      const records = parseTokenRecords(readFileSync(out, 'utf8'));
      // Two tasks taken round-robin over the level families (issue 39); a group is the task's index in the split.
      const [a, b] = pickTasks(getEnv('babyai'), 'train', { count: 2 }).map((id) => getEnv('babyai').tasks('train').indexOf(id));
      expect(records.map((r) => [r.group, r.sample])).toEqual([[a, 0], [a, 1], [b, 0], [b, 1]]);
      expect(records.every((r) => r.horizon === 2 && r.drift === 0 && r.split === 'train')).toBe(true);
      expect(new Set(records.slice(0, 2).map((r) => r.taskId)).size).toBe(1);
    } finally {
      await scripted.close();
    }
  });

  it('rollout against our serve-policy: the records are the model\'s own ids, and each log-prob is the model\'s score of its id', async () => {
    const out = path.join(dir, 'serve.jsonl');
    const result = await runCli(['rollout', '--env', 'babyai', '--agent', 'openai:serve-tiny', '--tokenizer', `hf:${FIXTURE}`, '--base-url', server.url,
      '--episodes', '2', '--horizon', '2', '--max-tokens', '6', '--temperature', '1', '--format', 'tokens', '--out', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const records = parseTokenRecords(readFileSync(out, 'utf8'));
    expect(records).toHaveLength(2);
    const scores = await sequenceLogProbs(hf.model, records.map((r) => r.tokens));
    records.forEach((record, r) => {
      expect(record.policy.name).toBe('openai:serve-tiny');
      expect(record.drift).not.toBeNull();
      record.mask.forEach((bit, t) => {
        if (bit === 1) expect(record.logProbs[t]).toBeCloseTo(scores[r]![t - 1]!, 3);
        else expect(record.logProbs[t]).toBe(0);
      });
      // The first prompt is the chat template's render of the opening turn.
      expect(hf.tokenizer.decode(record.turns[0]!.promptIds)).toContain('<|im_start|>assistant\n');
    });
  }, 120_000);

  it('an hf:DIR agent writes the same records (drift null: it sampled in this process)', async () => {
    const out = path.join(dir, 'hf.jsonl');
    const result = await runCli(['rollout', '--env', 'babyai', '--agent', `hf:${FIXTURE}`, '--backend', 'wasm', '--episodes', '2', '--horizon', '2',
      '--max-new-tokens', '6', '--format', 'tokens', '--out', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const records = parseTokenRecords(readFileSync(out, 'utf8'));
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record.drift).toBeNull();
      expect(record.policy.name).toBe('hf:serve-tiny');
      expect(record.tokens).toEqual(record.turns.flatMap((t) => [...t.promptIds, ...t.responseIds]));
      expect(record.turns.every((t) => t.drift === undefined && t.responseIds.length >= 1)).toBe(true);
    }
  }, 120_000);
});
