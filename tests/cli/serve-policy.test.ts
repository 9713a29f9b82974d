/** `actorgym serve-policy` as a user runs it: the real entry point in a child process. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCheckpoint } from '../../learner/checkpoint/write.ts';
import { resolveConfig } from '../../learner/training-config.ts';
import { freshModels, toCheckpoint } from '../../learner/run-models.ts';
import { selectBackend } from '../../policy/backend.ts';
import { promptFor } from '../../envs/prompt/prompt-for.ts';
import { Tokenizer } from '../../policy/tokenizer.ts';
import { getEnv } from '../../envs/index.ts';
import { runCli } from './run-cli.ts';
import { startServePolicy } from './serve-policy-process.ts';

let dir: string;

beforeAll(async () => {
  await selectBackend('cpu');
  dir = mkdtempSync(path.join(tmpdir(), 'actorgym-serve-policy-'));
  const config = resolveConfig('babyai', { steps: 2, model: { dModel: 16, nLayers: 1, nHeads: 2, dFF: 32, maxContext: 128 } });
  const tokenizer = Tokenizer.fromCorpus(['Your goal: go to the red ball', 'turn left', 'turn right', 'move forward'], { maxVocab: 128, minCount: 1 });
  const models = freshModels(tokenizer, config);
  const data = await toCheckpoint(models, {
    step: 2, policyVersion: 2, curriculum: { completedSteps: 2, horizon: 6 }, rng: { seed: 0, derivedFrom: 'seed and step' },
    config,
  });
  await writeCheckpoint(path.join(dir, 'checkpoint'), data);
  models.dispose();
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));


describe('actorgym serve-policy', () => {
  it('serves the checkpoint, prints its URL and model id, and stops cleanly on SIGTERM', async () => {
    const server = await startServePolicy(['--checkpoint', dir, '--port', '0', '--backend', 'cpu', '--token', 'tok', '--temperature', '0']);
    try {
      expect(server.modelId).toBe('actorgym-babyai-step2');
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(server.stderr()).toMatch(/temperature 0/);
      const client = new OpenAI({ baseURL: server.url, apiKey: 'tok', maxRetries: 0 });
      expect((await client.models.list()).data.map((m) => m.id)).toEqual(['actorgym-babyai-step2']);
      const instance = getEnv('babyai').make();
      const { observation, info } = await instance.reset({ taskId: getEnv('babyai').tasks('test')[0]!, seed: 1 });
      const prompt = promptFor('babyai');
      const reply = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: prompt.firstTurn(observation, info.availableActions) }], seed: 1 });
      const parsed = prompt.parseReply(reply.choices[0]!.message.content!);
      expect(parsed.ok && info.availableActions!.includes(parsed.action)).toBe(true);
    } finally {
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('fails with a clear message when there is no checkpoint', async () => {
    const result = await runCli(['serve-policy', '--checkpoint', path.join(dir, 'nowhere'), '--port', '0']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/CKPT_MISSING/);
  });
});
