/**
 * Issue 35: a fresh run's vocabulary comes from the env's own text, never from how an agent plays,
 * so a change to an oracle cannot re-draw it (and with it an RL-from-scratch result).
 */
import { describe, expect, it } from 'vitest';
import { buildTokenizer, envCorpus } from '../../actors/training/tokenizer-corpus.ts';
import type { EnvDefinition } from '../../envs/contract.ts';
import { getEnv } from '../../envs/index.ts';

const OPTIONS = { seed: 3, tasks: 12, maxVocab: 512 };
const vocabOf = async (env: EnvDefinition) => (await buildTokenizer(env, OPTIONS)).toJSON().vocab;

describe('the tokenizer corpus (issue 35)', () => {
  it('is the same with the oracle, without it, and with one that would fail if asked', async () => {
    const babyai = getEnv('babyai');
    const { oracle: _oracle, ...withoutOracle } = babyai;
    const failing: EnvDefinition = { ...babyai, oracle: () => ({ next: () => Promise.reject(new Error('the corpus asked the oracle')) }) };
    const vocab = await vocabOf(babyai);
    expect(await vocabOf(withoutOracle)).toEqual(vocab);
    expect(await vocabOf(failing)).toEqual(vocab);
  });

  it('reads only train tasks, and the same ones for the same seed', async () => {
    const babyai = getEnv('babyai');
    const test = new Set(babyai.tasks('test'));
    const seen: string[] = [];
    const watched: EnvDefinition = {
      ...babyai,
      make: () => {
        const env = babyai.make();
        return { spec: env.spec, step: (a) => env.step(a), close: () => env.close(), reset: (o) => (seen.push(o.taskId), env.reset(o)) };
      },
    };
    const first = await envCorpus(watched, OPTIONS);
    const tasks = new Set(seen);
    expect(tasks.size).toBe(OPTIONS.tasks);
    for (const task of tasks) expect(test.has(task)).toBe(false);
    expect(await envCorpus(babyai, OPTIONS)).toEqual(first);
  });

  it('holds the text the policy reads past the first move: what carrying an object offers', async () => {
    const { actions } = await envCorpus(getEnv('babyai'), { ...OPTIONS, tasks: 72 });
    expect(actions).toContain('drop');
  });
});
