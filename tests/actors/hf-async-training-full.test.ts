// Issue 37: asynchronous training (K = 1) of a Hugging Face model, full fine-tuning: the agent holds its own copy of every weight (tests/actors/hf-async-run.ts).
import { describe, it } from 'vitest';
import { expectAsyncRun, runHfAsync } from './hf-async-run.ts';

describe('asynchronous training of a Hugging Face model (issue 37)', () => {
  it('full (ppo), K = 1: every step trained once on all its groups, none staler than 1, collected ahead', async () => {
    expectAsyncRun(await runHfAsync('full', 'ppo', 3), 3);
  }, 60_000);
});
