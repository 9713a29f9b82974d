/**
 * A tiny deterministic env for transport tests, standing in for BabyAI: count up to a target.
 * Task `counter_k` has target `2 + k % 3`. `inc` counts, `wait` does nothing, anything else is
 * an invalid action. Reaching the target terminates with reward `1 - 0.1 * steps`; 8 steps
 * without reaching it truncate. Observations end with AgentGym's BabyAI action list.
 */
import { EnvError, type Env, type EnvDefinition, type EnvSpec, type StepResult } from '../../envs/contract.ts';

export const FAKE_ACTIONS = ['inc', 'wait'] as const;
const MAX_STEPS = 8;

export const fakeSpec: EnvSpec = {
  id: 'fake-counter',
  description: 'count to a target (transport tests)',
  defaultHorizon: 10,
  splits: { train: 4, test: 2 },
  maxReward: 1,
};

const testTasks = ['counter_0', 'counter_1'];
const trainTasks = ['counter_2', 'counter_3', 'counter_4', 'counter_5'];

export interface FakeEnvOptions {
  /** Delay every step by this many ms (deadline tests). */
  readonly stepDelayMs?: number;
  /** Counts envs made and closed, to check the server closes what it creates. */
  readonly counters?: { made: number; closed: number };
}

function view(count: number, target: number, note = ''): string {
  return `${note}Counter ${count} of ${target}.\nAvailable actions: ["inc", "wait"]`;
}

class FakeCounterEnv implements Env {
  readonly spec = fakeSpec;
  #target = 0;
  #count = 0;
  #steps = 0;
  #state: 'new' | 'running' | 'over' | 'closed' = 'new';
  #delay: NodeJS.Timeout | undefined;

  constructor(private readonly options: FakeEnvOptions) {}

  async reset(options: { taskId: string }) {
    if (this.#state === 'closed') throw new EnvError('ENV_CLOSED', 'reset after close');
    const k = Number(/^counter_(\d+)$/.exec(options.taskId)?.[1] ?? NaN);
    if (!Number.isInteger(k) || k > 5) throw new EnvError('TASK_UNKNOWN', `unknown task ${options.taskId}`);
    this.#target = 2 + (k % 3);
    this.#count = 0;
    this.#steps = 0;
    this.#state = 'running';
    return { observation: `Your goal: count to ${this.#target}\n${view(0, this.#target)}`, info: { availableActions: [...FAKE_ACTIONS] } };
  }

  async step(action: string): Promise<StepResult> {
    if (this.#state !== 'running') throw new EnvError('ENV_NOT_RESET', `step in state ${this.#state}`);
    // Closing cancels the delay (the step then never settles), so tests leave no timer behind.
    if (this.options.stepDelayMs) await new Promise((resolve) => (this.#delay = setTimeout(resolve, this.options.stepDelayMs)));
    this.#steps += 1;
    const invalid = action !== 'inc' && action !== 'wait';
    if (action === 'inc') this.#count += 1;
    const terminated = this.#count >= this.#target;
    const truncated = !terminated && this.#steps >= MAX_STEPS;
    if (terminated || truncated) this.#state = 'over';
    const reward = terminated ? Math.round((1 - 0.1 * this.#steps) * 100) / 100 : 0;
    const note = invalid ? `You cannot ${action}. ` : '';
    const info = { availableActions: [...FAKE_ACTIONS], ...(invalid ? { invalidAction: true } : {}), ...(terminated ? { success: true } : {}) };
    return { observation: view(this.#count, this.#target, note), reward, terminated, truncated, info };
  }

  async close() {
    clearTimeout(this.#delay);
    if (this.#state !== 'closed' && this.options.counters) this.options.counters.closed += 1;
    this.#state = 'closed';
  }
}

export function fakeCounterDefinition(options: FakeEnvOptions = {}): EnvDefinition {
  return {
    spec: fakeSpec,
    tasks: (split) => (split === 'test' ? testTasks : trainTasks),
    make: () => {
      if (options.counters) options.counters.made += 1;
      return new FakeCounterEnv(options);
    },
  };
}
