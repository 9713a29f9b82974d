/**
 * Issue 36, bad input to `train`/`sft --policy hf:DIR`, through the CLI: each is one error line
 * naming what is wrong (the folder, the file, the option), and no run directory is left behind.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const MODEL = path.resolve('tests/fixtures/hf/qwen2-tiny-chat');
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-bad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the model folder with one file replaced. */
function brokenModel(name: string, file: string, bytes: Uint8Array | string): string {
  const out = path.join(dir, name);
  mkdirSync(out);
  for (const f of readdirSync(MODEL)) copyFileSync(path.join(MODEL, f), path.join(out, f));
  writeFileSync(path.join(out, file), bytes);
  return out;
}

const train = (args: readonly string[]) => runCli(['train', '--env', 'babyai', '--steps', '1', '--no-dashboard', '--backend', 'wasm', ...args]);

describe('train --policy hf:DIR refuses bad input clearly', () => {
  it.each([
    ['a folder that does not exist', ['--policy', 'hf:/nonexistent/model'], /--policy hf:\/nonexistent\/model: no such folder/],
    ['a Hugging Face option without --policy', ['--lora-r', '4'], /--lora-r is an option of a Hugging Face model: give --policy hf:DIR/],
    ['an adapter with full fine-tuning', ['--policy', `hf:${MODEL}`, '--finetune', 'full', '--adapter', MODEL], /adapter \(--adapter\) is trained in LoRA mode/],
    ['two learner threads', ['--policy', `hf:${MODEL}`, '--learner-threads', '2'], /one learner thread/],
    ['an unknown LoRA target', ['--policy', `hf:${MODEL}`, '--lora-targets', 'q_proj,bogus'], /unknown target module "bogus"/],
    ['an unknown policy', ['--policy', 'gpt'], /unknown policy "gpt"; expected transformer or hf:DIR/],
  ])('%s', async (_name, args, message) => {
    const out = path.join(dir, `run-${args.join('-').replace(/[^a-z0-9]/gi, '')}`);
    const r = await train([...args, '--out', out]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(existsSync(path.join(out, 'checkpoint'))).toBe(false);
  });

  it('a truncated safetensors header names the file', async () => {
    const bad = brokenModel('truncated', 'model.safetensors', readFileSync(path.join(MODEL, 'model.safetensors')).subarray(0, 100));
    const r = await train(['--policy', `hf:${bad}`, '--out', path.join(dir, 'run-truncated')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${bad}/model.safetensors: header length`);
  });

  it('a config.json with an unknown model_type names the field', async () => {
    const config = JSON.parse(readFileSync(path.join(MODEL, 'config.json'), 'utf8')) as Record<string, unknown>;
    const bad = brokenModel('unknown-type', 'config.json', JSON.stringify({ ...config, model_type: 'mistral' }));
    const r = await train(['--policy', `hf:${bad}`, '--out', path.join(dir, 'run-unknown-type')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${bad}/config.json`);
    expect(r.stderr).toContain('model_type');
  });
});
