/**
 * `--judge openai:MODEL` (issue 39): the flag's form, its refusals, the judge it builds over an
 * OpenAI-compatible chat endpoint (a scripted one here), and the evaluation files that record it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointJudge, judgedWebEnv, parseJudgeSpec } from '../../cli/judge-option.ts';
import { getEnv } from '../../envs/index.ts';
import { runEvaluation } from '../../eval/run-eval.ts';

const flags = { llmTimeout: 5, llmRetries: 0 } as const;

describe('--judge', () => {
  it('takes openai:MODEL only', () => {
    expect(parseJudgeSpec('openai:gpt-4o-mini')).toBe('openai:gpt-4o-mini');
    for (const bad of ['gpt-4o', 'openai:', 'hf:dir']) expect(() => parseJudgeSpec(bad), bad).toThrow(/--judge takes openai:MODEL/);
  });

  it('refuses an env without free-text answers and a remote env', async () => {
    await expect(judgedWebEnv('babyai', { ...flags, judge: 'openai:m' })).rejects.toThrow(/needs --env web or --env webarena:PATH/);
    await expect(judgedWebEnv('web', { ...flags, judge: 'openai:m', remote: 'ws://127.0.0.1:1' })).rejects.toThrow(/drop --remote/);
  });
});

describe('the judge over a chat endpoint', () => {
  const bodies: Record<string, unknown>[] = [];
  let server: http.Server;
  let baseUrl = '';
  beforeAll(async () => {
    // Says "Correct." when the student answer mentions "tectonic", else "Incorrect.".
    server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as { model: string; messages: { content: string }[] };
        bodies.push(body);
        const student = /student answer: (.*)/.exec(body.messages.at(-1)?.content ?? '')?.[1] ?? '';
        const content = student.includes('tectonic') ? 'Correct.' : 'Incorrect.';
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('judges WebArena tasks too: --env webarena:PATH with --judge loads the fuzzy_match tasks a run without one skips', async () => {
    const fixtures = path.join(import.meta.dirname, '..', 'fixtures', 'webarena');
    const saved = { ...process.env };
    Object.assign(process.env, { ACTORGYM_WEB_SHOPPING_URL: 'http://127.0.0.1:7770', ACTORGYM_WEB_REDDIT_URL: 'http://127.0.0.1:9999' });
    try {
      const plain = (await import('../../envs/web/webarena/index.ts')).createWebArenaDefinition({ tasks: fixtures });
      const judged = await judgedWebEnv(`webarena:${fixtures}`, { ...flags, baseUrl, judge: 'openai:judge-model' });
      await judged.close();
      const count = (env: typeof judged.env) => env.spec.splits.test;
      expect(plain.loaded.skipped.some((s) => /fuzzy_match/.test(s.reason))).toBe(true);
      expect(count(judged.env)).toBe(count(plain) + plain.loaded.skipped.filter((s) => /fuzzy_match/.test(s.reason)).length);
      expect(judged.name).toBe('openai:judge-model');
    } finally {
      process.env = saved;
    }
  });

  it('asks the model at temperature 0 and reads its conclusion', async () => {
    const { judge, close } = await endpointJudge('openai:judge-model', { ...flags, baseUrl });
    try {
      expect(judge.name).toBe('openai:judge-model');
      expect(await judge.grade({ question: 'What is it about?', reference: 'plate tectonics', answer: 'moving tectonic plates' })).toBe(true);
      expect(await judge.grade({ question: 'What is it about?', reference: 'plate tectonics', answer: 'volcanoes' })).toBe(false);
    } finally {
      await close();
    }
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatchObject({ model: 'judge-model', temperature: 0 });
    expect(JSON.stringify(bodies[0])).toContain('reference answer: plate tectonics');
  });
});

describe('an evaluation with a judge', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'actorgym-judge-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('records the judge in config.json and results.json, and refuses to resume without it', async () => {
    const out = path.join(root, 'judged');
    const base = { env: getEnv('babyai'), agent: 'random', samples: 1, tasks: 2, horizon: 2, out } as const;
    const run = await runEvaluation({ ...base, judge: 'openai:judge-model' });
    expect(run.results.judge).toBe('openai:judge-model');
    expect(JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))).toMatchObject({ judge: 'openai:judge-model' });
    expect(JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'))).toMatchObject({ judge: 'openai:judge-model' });
    await expect(runEvaluation(base)).rejects.toThrow(/judge/);
    const plain = await runEvaluation({ ...base, out: path.join(root, 'plain') });
    expect(plain.results).not.toHaveProperty('judge');
  });
});
