/**
 * Issue 36 (item 7): `collect --agent hf:DIR` writes a random tiny model's episodes as demos, and
 * the commands refuse a folder that is not a model (naming the missing file) and `--adapter`
 * without an hf: agent.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDemos } from '../../demos/read-demos.ts';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-collect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('collect --agent hf:DIR', () => {
  it('writes its episodes as demos', async () => {
    const out = path.join(dir, 'demos.jsonl');
    const r = await runCli(['collect', '--env', 'babyai', '--agent', 'hf:tests/fixtures/hf/qwen3-tiny-chat', '--episodes', '2', '--samples', '2', '--horizon', '2', '--max-new-tokens', '6', '--backend', 'wasm', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ episodes: 4, written: 4, aborted: 0, agent: 'hf:tests/fixtures/hf/qwen3-tiny-chat' });
    const demos = await readDemos(out);
    expect(demos).toHaveLength(4);
    expect(demos.every((d) => d.turns.length >= 1 && d.turns.length <= 2)).toBe(true);
  });

  it('refuses a folder that is not a model, naming the missing file', async () => {
    const folder = path.join(dir, 'not-a-model');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'config.json'), '{}');
    const r = await runCli(['rollout', '--env', 'babyai', '--agent', `hf:${folder}`, '--episodes', '1', '--backend', 'cpu']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`HF_POLICY_NOT_A_MODEL: ${folder} is not a Hugging Face model folder: ${path.join(folder, 'tokenizer.json')}, ${path.join(folder, 'model.safetensors')} (or model.safetensors.index.json) missing`);
  });

  it('refuses --adapter without an hf: agent', async () => {
    const r = await runCli(['eval', '--env', 'babyai', '--agent', 'random', '--adapter', 'runs/adapter', '--tasks', '1', '--out', path.join(dir, 'e')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--adapter runs/adapter is a LoRA adapter of a Hugging Face model: it needs --agent hf:DIR, not --agent random');
  });
});
