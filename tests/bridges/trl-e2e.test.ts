/**
 * Issue 38: TRL's GRPOTrainer trains on multi-turn BabyAI through the bridge (bridges/trl/), the
 * episodes run by `actorgym rollout-server` (a child process, as a user starts it, with a bearer
 * token) and sampled by the model being trained (the bridge's
 * in-process /v1/completions server). Three GRPO steps on CPU; checked: the loss is finite every
 * step, the rewards TRL logged are the env's (the records'), the prompt and completion TRL trained
 * on are the records' ids split at turn 0's prompt, the token counts TRL logged add up from the
 * records, every record passes the token-record schema, and the weights moved.
 *
 * The model is tests/bridges/fixtures/qwen2-babyai (make-qwen2-babyai.py says why it is not the
 * bare random model: that one never writes an action, so every reward and every advantage is 0).
 *
 * Runs where Python with torch, transformers, trl, datasets and accelerate imports: $ACTORGYM_PYTHON
 * when set (CI: .ci/run), else /tmp/hfvenv/bin/python, else python3; elsewhere skipped, saying why.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { TokenRecordSchema, type TokenRecord } from '../../demos/token-record.ts';
import { findPython } from '../support/find-python.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DRIVER = path.join(ROOT, 'bridges/trl/examples/grpo_babyai.py');
const MODEL = path.join(ROOT, 'tests/bridges/fixtures/qwen2-babyai');
const BIN = path.join(ROOT, 'bin/actorgym.js');
const STEPS = 3;
const TOKEN = 'trl-e2e';

/** `actorgym rollout-server --port 0 --token …` as a user starts it; resolves with its URL once it listens. */
function startRolloutServer(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'rollout-server', '--port', '0', '--token', TOKEN], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /listening on (http:\/\/\S+)\n/.exec(out);
      if (ready) resolve({ child, url: ready[1]! });
    });
    child.once('exit', (code) => reject(new Error(`rollout-server exited with ${code} before it was ready: ${err.trim()}`)));
  });
}

const { python, reason } = findPython(['torch', 'transformers', 'trl', 'datasets', 'accelerate']);
if (python === undefined) console.warn(`trl-e2e.test.ts skipped: ${reason}`);

interface Episode { prompt_ids: number; completion_ids: number; env_mask: number; logprobs: number; env_reward: number; env_outcome: string; sampled: number }
interface Summary {
  seconds: number;
  logs: Record<string, number>[];
  batches: { step: number; episodes: Episode[]; records: TokenRecord[] }[];
  numInputTokensSeen: number;
  maxWeightChange: number;
  optimizerSteps: number;
  served: { replies: number; sampledTokens: number };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]) => sum(xs) / xs.length;

describe.skipIf(python === undefined)('TRL GRPO through the bridge, episodes from the model being trained', () => {
  let tmp: string;
  let service: { child: ChildProcess; url: string } | undefined;
  let summary: Summary;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'actorgym-trl-e2e-'));
    const started = performance.now();
    service = await startRolloutServer();
    const out = path.join(tmp, 'summary.json');
    await promisify(execFile)(python!, [DRIVER, '--service', service.url, '--token', TOKEN, '--model', MODEL,
      '--steps', String(STEPS), '--output-dir', path.join(tmp, 'out'), '--summary', out, '--keep-records'],
    { cwd: ROOT, timeout: 240_000, maxBuffer: 64 << 20, env: { ...process.env, OMP_NUM_THREADS: '1', TOKENIZERS_PARALLELISM: 'false' } });
    summary = JSON.parse(await readFile(out, 'utf8')) as Summary;
    console.log(`trl-e2e: ${STEPS} GRPO steps in ${((performance.now() - started) / 1000).toFixed(1)} s (service start to summary; the driver's own ${summary.seconds} s)`);
  }, 300_000);

  afterAll(async () => {
    if (service !== undefined && service.child.exitCode === null) {
      const exited = new Promise((resolve) => service!.child.once('exit', resolve));
      service.child.kill('SIGTERM');
      await exited;
    }
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  it('takes three optimizer steps with a finite loss, and moves the weights', () => {
    expect(summary.logs).toHaveLength(STEPS);
    expect(summary.optimizerSteps).toBe(STEPS);
    for (const log of summary.logs) expect(Number.isFinite(log['loss'])).toBe(true);
    expect(summary.maxWeightChange).toBeGreaterThan(0);
  });

  it('hands TRL the env rewards of the records, with some spread within a group', () => {
    expect(summary.batches).toHaveLength(STEPS);
    summary.batches.forEach((batch, i) => {
      const rewards = batch.records.map((r) => r.reward);
      expect(batch.episodes.map((e) => e.env_reward)).toEqual(rewards);
      for (const record of batch.records) {
        expect(record.reward).toBeCloseTo(sum(record.turns.map((t) => t.reward)), 9);
        expect(record.reward > 0).toBe(record.outcome === 'success');
      }
      expect(summary.logs[i]!['reward']).toBeCloseTo(mean(rewards), 5);
    });
    // Without a spread there is no advantage and no gradient: the check that the reward reached the loss.
    expect(summary.logs.some((log) => log['reward_std']! > 0)).toBe(true);
  });

  it('trains on the records\' ids: prompt = turn 0\'s prompt, completion = the rest, loss only on sampled ids', () => {
    let tokensSeen = 0;
    let sampled = 0;
    summary.batches.forEach((batch, i) => {
      expect(batch.records).toHaveLength(8);
      batch.records.forEach((record, j) => {
        expect(TokenRecordSchema.safeParse(record).success).toBe(true);
        const episode = batch.episodes[j]!;
        expect(episode.prompt_ids).toBe(record.turns[0]!.promptIds.length);
        expect(episode.prompt_ids + episode.completion_ids).toBe(record.tokens.length);
        expect(episode.env_mask).toBe(episode.completion_ids);
        expect(episode.logprobs).toBe(episode.completion_ids);
        expect(episode.sampled).toBe(sum(record.turns.map((t) => t.responseIds.length)));
        expect(episode.prompt_ids).toBeGreaterThan(0);
        expect(episode.sampled).toBeGreaterThan(0);
      });
      // TRL counts completion tokens through env_mask: only what the model sampled.
      expect(summary.logs[i]!['completions/mean_length']).toBeCloseTo(mean(batch.episodes.map((e) => e.sampled)), 5);
      tokensSeen += sum(batch.episodes.map((e) => e.prompt_ids + e.sampled));
      sampled += sum(batch.episodes.map((e) => e.sampled));
    });
    expect(summary.numInputTokensSeen).toBe(tokensSeen);
    expect(summary.logs.at(-1)!['num_tokens']).toBe(tokensSeen);
    // Every sampled id came from the in-process server (the model being trained), and nothing else did.
    expect(summary.served.sampledTokens).toBe(sampled);
  });
});
