/**
 * Issue 36 (item 7): `--agent hf:DIR [--adapter DIR]` through the real CLI — rollout and eval of
 * BabyAI with a tiny random Qwen2 model (tests/fixtures/hf/qwen2-tiny-chat). A random model fails
 * the tasks, so these assert counts, records and format errors, not success.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { promptFor } from '../../envs/prompt/prompt-for.ts';
import { runCli } from './run-cli.ts';

const MODEL = 'tests/fixtures/hf/qwen2-tiny-chat';
const ADAPTER = 'tests/fixtures/hf/lora/qwen2-tiny-r4';
const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-hf-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Turn {
  readonly action: string;
  readonly invalidAction: boolean;
  readonly tokenIds?: number[];
  readonly logProbs?: number[];
  readonly usage?: { reply: string; formatError?: string; completionTokens: number };
}

describe('--agent hf:DIR', () => {
  it('rolls out BabyAI episodes with a Hugging Face model folder', async () => {
    const r = await runCli(['rollout', '--env', 'babyai', '--agent', `hf:${MODEL}`, '--episodes', '4', '--horizon', '2', '--max-new-tokens', '8', '--backend', 'wasm', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      agent: string; episodes: number; outcomes: { success: number; failure: number; truncated: number; aborted: number }; results: { turns: number }[];
      llm: { calls: number; completionTokens: number };
    };
    expect(summary.agent).toBe('hf:qwen2-tiny-chat');
    expect(summary.episodes).toBe(4);
    expect(summary.outcomes.aborted).toBe(0);
    expect(summary.outcomes.success + summary.outcomes.failure + summary.outcomes.truncated).toBe(4);
    expect(summary.results.every((e) => e.turns >= 1 && e.turns <= 2)).toBe(true);
    // One decision per turn, each of 1 to 8 tokens.
    const turns = summary.results.reduce((n, e) => n + e.turns, 0);
    expect(summary.llm.calls).toBe(turns);
    expect(summary.llm.completionTokens).toBeGreaterThanOrEqual(turns);
    expect(summary.llm.completionTokens).toBeLessThanOrEqual(8 * turns);
  });

  it('evaluates it with a peft adapter: every turn keeps its tokens, reply and format error', async () => {
    const out = path.join(dir, 'eval');
    const r = await runCli([
      'eval', '--env', 'babyai', '--agent', `hf:${MODEL}`, '--adapter', ADAPTER, '--tasks', '2', '--samples', '2', '--horizon', '2',
      '--max-new-tokens', '8', '--temperature', '0.8', '--top-p', '0.95', '--backend', 'wasm', '--out', out, '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('backend: wasm · agent hf:qwen2-tiny-chat+qwen2-tiny-r4');
    const results = JSON.parse(r.stdout) as { agent: string; complete: boolean; missing: number; outcomes: Record<string, number> };
    expect(results).toMatchObject({ agent: 'hf:qwen2-tiny-chat+qwen2-tiny-r4', complete: true, missing: 0 });
    const episodes = readFileSync(path.join(out, 'episodes.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { trajectory: Turn[] });
    expect(episodes).toHaveLength(4);
    const turns = episodes.flatMap((e) => e.trajectory);
    const prompt = promptFor('babyai');
    for (const turn of turns) {
      expect(turn.tokenIds!.length).toBeGreaterThan(0);
      expect(turn.tokenIds!.length).toBeLessThanOrEqual(8);
      expect(turn.logProbs).toHaveLength(turn.tokenIds!.length);
      expect(turn.usage!.completionTokens).toBe(turn.tokenIds!.length);
      // The format error recorded is the env's own reading of the reply, and the env got its action.
      const parsed = prompt.parseReply(turn.usage!.reply);
      expect(turn.usage!.formatError).toBe(parsed.ok ? undefined : parsed.error);
      expect(turn.action).toBe(parsed.ok ? parsed.action : parsed.envAction);
    }
    expect(turns.filter((t) => t.usage!.formatError !== undefined).length).toBeGreaterThan(0);
  });
});
