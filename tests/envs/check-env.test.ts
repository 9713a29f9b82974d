import { describe, it, expect } from 'vitest';
import { checkEnv } from '../../envs/check-env.ts';
import { EnvError, type Env, type EnvDefinition, type ResetOptions, type StepResult } from '../../envs/contract.ts';
import { babyaiDefinition } from '../../envs/babyai/index.ts';

interface Flaws {
  stepBeforeReset?: boolean;
  randomObservation?: boolean;
  badReward?: boolean;
  acceptsUnknownTask?: boolean;
  usableAfterClose?: boolean;
  overlappingSplits?: boolean;
  wrongSplitSize?: boolean;
  badSymmetries?: boolean;
}

/** A counter env: the observation is the running sum of the digits typed as actions. */
function counterDefinition(flaws: Flaws = {}): EnvDefinition {
  const train = flaws.overlappingSplits ? ['t/1', 't/2', 'x/0'] : ['t/1', 't/2', 't/3'];
  const spec = { id: 'counter', description: 'counts', defaultHorizon: 5, maxReward: 1, splits: { train: 3, test: flaws.wrongSplitSize ? 3 : 2 }, ...(flaws.badSymmetries ? { symmetries: [['1', '2'], ['2', '3']] } : {}) };
  let noise = 0;
  const make = (): Env => {
    let total: number | null = null;
    let closed = false;
    const guard = (needReset: boolean) => {
      if (closed && !flaws.usableAfterClose) throw new EnvError('ENV_CLOSED', 'closed');
      if (needReset && total === null && !flaws.stepBeforeReset) throw new EnvError('ENV_NOT_RESET', 'reset first');
    };
    return {
      spec,
      async reset(options: ResetOptions) {
        guard(false);
        if (!/^[tx]\/\d$/.test(options.taskId) && !flaws.acceptsUnknownTask) throw new EnvError('TASK_UNKNOWN', 'no');
        total = Number(options.taskId.slice(2));
        return { observation: `total ${total}`, info: { availableActions: ['1', '2'] } };
      },
      async step(action: string): Promise<StepResult> {
        guard(true);
        total = (total ?? 0) + Number(action);
        const observation = flaws.randomObservation ? `total ${total} ${noise++}` : `total ${total}`;
        const done = total >= 9;
        return { observation, reward: flaws.badReward ? NaN : done ? 1 : 0, terminated: done, truncated: false, info: { availableActions: ['1', '2'] } };
      },
      async close() {
        closed = true;
      },
    };
  };
  return { spec, tasks: (split) => (split === 'train' ? train : ['x/0', 'x/1']), make };
}

describe('checkEnv', () => {
  it('passes a well-behaved env and BabyAI', async () => {
    await expect(checkEnv(counterDefinition())).resolves.toBeUndefined();
    await expect(checkEnv(babyaiDefinition)).resolves.toBeUndefined();
  });

  const cases: [keyof Flaws, RegExp][] = [
    ['stepBeforeReset', /step\(\) before reset\(\) must fail with EnvError ENV_NOT_RESET/],
    ['randomObservation', /did not replay identically: step \d+ differs in observation/],
    ['badReward', /reward NaN is not a finite number/],
    ['acceptsUnknownTask', /unknown task .* must fail with EnvError TASK_UNKNOWN/],
    ['usableAfterClose', /reset\(\) after close\(\) must fail with EnvError ENV_CLOSED/],
    ['overlappingSplits', /task "x\/0" is in both splits "train" and "test"/],
    ['wrongSplitSize', /split "test" has 2 tasks but spec.splits.test says 3/],
    ['badSymmetries', /spec.symmetries: symmetry word "2" appears twice/],
  ];
  for (const [flaw, message] of cases) {
    it(`names the failure when an env has the flaw "${flaw}"`, async () => {
      await expect(checkEnv(counterDefinition({ [flaw]: true }))).rejects.toThrow(message);
    });
  }
});
