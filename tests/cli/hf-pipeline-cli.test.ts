/**
 * Issue 36, through the CLI as a user runs it: a tiny Qwen2-shaped model folder
 * (tests/fixtures/hf/qwen2-tiny-chat) is collected for (oracle demos), SFT-trained on BabyAI demos
 * with LoRA, exported as a PEFT adapter, reloaded as `hf:DIR --adapter`, trained further with
 * GRPO from the SFT run (`train --init`), exported merged, served with `serve-policy`, and
 * evaluated through the served endpoint and from the run's checkpoint. A random tiny model fails
 * the tasks: the test checks what each step writes and reports, not success.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';
import { startServePolicy } from './serve-policy-process.ts';

const MODEL = path.resolve('tests/fixtures/hf/qwen2-tiny-chat');
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-pipeline-'));
const at = (name: string): string => path.join(dir, name);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = <T>(stdout: string): T => JSON.parse(stdout) as T;
const ok = (r: { code: number; stderr: string }): void => expect(r.code, r.stderr).toBe(0);


describe('a Hugging Face model from demos to a served, evaluated agent', () => {
  it('collect → sft → export → reload → train --init (GRPO) → export merged → serve → eval', async () => {
    ok(await runCli(['collect', '--env', 'babyai', '--agent', 'oracle', '--episodes', '6', '--out', at('demos.jsonl')]));

    const sft = await runCli(['sft', '--env', 'babyai', '--policy', `hf:${MODEL}`, '--demos', at('demos.jsonl'), '--epochs', '2', '--lr', '5e-3',
      '--lora-r', '4', '--eval-episodes', '0', '--out', at('sft'), '--backend', 'wasm', '--no-dashboard', '--json'], 300_000);
    ok(sft);
    const sftSummary = json<{ status: string; epochs: number; demos: { trained: number; agentTokens: number }; trainLoss: number }>(sft.stdout);
    expect(sftSummary).toMatchObject({ status: 'done', epochs: 2 });
    expect(sftSummary.demos.trained).toBeGreaterThan(0);
    expect(sftSummary.demos.agentTokens).toBeGreaterThan(0);
    const losses = readFileSync(at('sft/metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { loss: number }).loss);
    expect(losses[1]!).toBeLessThan(losses[0]!);

    ok(await runCli(['export', '--checkpoint', at('sft'), '--format', 'peft', '--out', at('sft-adapter')]));
    expect(JSON.parse(readFileSync(at('sft-adapter/adapter_config.json'), 'utf8'))).toMatchObject({ peft_type: 'LORA', r: 4 });

    const reloaded = await runCli(['rollout', '--env', 'babyai', '--agent', `hf:${MODEL}`, '--adapter', at('sft-adapter'), '--episodes', '2', '--horizon', '2',
      '--max-new-tokens', '12', '--backend', 'wasm', '--json'], 300_000);
    ok(reloaded);
    expect(json<{ agent: string; episodes: number }>(reloaded.stdout)).toMatchObject({ agent: 'hf:qwen2-tiny-chat+sft-adapter', episodes: 2 });

    const rl = await runCli(['train', '--env', 'babyai', '--init', at('sft'), '--algo', 'grpo', '--steps', '1', '--tasks-per-step', '2', '--group-size', '2',
      '--schedule', 'fixed:2', '--max-new-tokens', '12', '--eval-episodes', '0', '--out', at('rl'), '--backend', 'wasm', '--no-dashboard', '--json'], 300_000);
    ok(rl);
    const rlSummary = json<{ status: string; steps: number; config: { initFrom: string; hf: { model: string; mode: string; maxNewTokens: number } }; lastMetrics: { episodes: number } }>(rl.stdout);
    expect(rlSummary).toMatchObject({ status: 'done', steps: 1, config: { hf: { model: MODEL, mode: 'lora', maxNewTokens: 12 } } });
    expect(rlSummary.config.initFrom).toContain(path.join(dir, 'sft'));
    expect(rlSummary.lastMetrics.episodes).toBe(4);

    ok(await runCli(['export', '--checkpoint', at('rl'), '--format', 'merged', '--out', at('merged')]));
    for (const file of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']) expect(existsSync(at(`merged/${file}`)), file).toBe(true);

    const server = await startServePolicy(['--policy', `hf:${at('merged')}`, '--port', '0', '--backend', 'wasm', '--max-new-tokens', '12']);
    try {
      expect(server.modelId).toBe('hf:merged');
      const served = await runCli(['eval', '--env', 'babyai', '--agent', 'openai:hf:merged', '--base-url', server.url, '--tasks', '2', '--samples', '1',
        '--horizon', '2', '--max-tokens', '12', '--out', at('eval-served'), '--json'], 300_000);
      ok(served);
      expect(json<{ complete: boolean; missing: number }>(served.stdout)).toMatchObject({ complete: true, missing: 0 });
    } finally {
      server.child.kill('SIGTERM');
    }

    const fromRun = await runCli(['eval', '--checkpoint', at('rl'), '--tasks', '2', '--samples', '1', '--horizon', '2', '--out', at('eval-run'), '--backend', 'wasm', '--json'], 300_000);
    ok(fromRun);
    expect(json<{ agent: string; complete: boolean }>(fromRun.stdout)).toMatchObject({ agent: 'hf:qwen2-tiny-chat+checkpoint', complete: true });
  }, 900_000);
});
