/**
 * A tiny deterministic env for transport tests: task `count-N` is solved by reaching count N
 * with `inc` (reward 1). Extra actions exercise the transport: `sleep:MS` answers after MS ms
 * (cancelled by close), `throw` throws a plain Error, `big:N` answers with an N-character
 * observation. `live` holds the instances that are not closed yet.
 */
import { EnvError, type Env, type EnvDefinition, type EnvSpec, type ResetOptions, type ResetResult, type StepResult } from '../../envs/contract.ts';

const ACTIONS = ['inc', 'dec', 'noop'] as const;
const MAX_STEPS = 50;

export class CounterEnv implements Env {
  count = 0;
  target = 0;
  private steps = 0;
  private wasReset = false;
  private done = false;
  private closed = false;
  private sleeping: { timer: NodeJS.Timeout; reject: (error: Error) => void } | undefined;

  constructor(
    readonly spec: EnvSpec,
    private readonly live: Set<CounterEnv>,
  ) {
    live.add(this);
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'closed');
    const match = /^count-(\d+)$/.exec(options.taskId);
    if (!match) throw new EnvError('TASK_UNKNOWN', `unknown task "${options.taskId}"`);
    this.target = Number(match[1]);
    this.count = 0;
    this.steps = 0;
    this.wasReset = true;
    this.done = false;
    return {
      observation: `reach ${this.target}; count=0; seed=${options.seed ?? 'none'}`,
      info: { availableActions: [...ACTIONS], seed: options.seed ?? null },
    };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvError('ENV_CLOSED', 'closed');
    if (!this.wasReset || this.done) throw new EnvError('ENV_NOT_RESET', 'reset first');
    if (action === 'throw') throw new Error('the counter broke');
    if (action.startsWith('sleep:')) await this.sleep(Number(action.slice(6)));
    let invalidAction = false;
    let observation = '';
    if (action === 'inc') this.count++;
    else if (action === 'dec') this.count--;
    else if (action.startsWith('big:')) observation = 'x'.repeat(Number(action.slice(4)));
    else if (action !== 'noop' && !action.startsWith('sleep:')) invalidAction = true;
    this.steps++;
    const terminated = this.count === this.target;
    const truncated = !terminated && this.steps >= MAX_STEPS;
    this.done = terminated || truncated;
    return {
      observation: observation || (invalidAction ? `cannot "${action}"; count=${this.count}` : `count=${this.count}`),
      reward: terminated ? 1 : 0,
      terminated,
      truncated,
      info: { availableActions: [...ACTIONS], invalidAction, ...(terminated ? { success: true } : {}) },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live.delete(this);
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.reject(new EnvError('ENV_CLOSED', 'closed while sleeping'));
      this.sleeping = undefined;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.sleeping = undefined;
        resolve();
      }, ms);
      this.sleeping = { timer, reject };
    });
  }
}

export interface CounterDefinition extends EnvDefinition {
  /** Instances made and not closed yet. */
  readonly live: Set<CounterEnv>;
}

export function counterDefinition(options: { id?: string; oracle?: boolean } = {}): CounterDefinition {
  const spec: EnvSpec = {
    id: options.id ?? 'counter',
    description: 'count up to N',
    defaultHorizon: 12,
    splits: { train: 8, test: 2 },
    maxReward: 1,
  };
  const live = new Set<CounterEnv>();
  const train = Array.from({ length: 8 }, (_, i) => `count-${i + 1}`);
  const test = ['count-9', 'count-10'];
  const definition: CounterDefinition = {
    spec,
    live,
    tasks: (split) => (split === 'train' ? train : test),
    make: () => new CounterEnv(spec, live),
  };
  if (options.oracle === false) return definition;
  return {
    ...definition,
    oracle: (env) => ({
      next: async () => {
        const counter = env as CounterEnv;
        return counter.count < counter.target ? 'inc' : 'dec';
      },
    }),
  };
}

/** resolveEnv for a server that serves the given definitions. */
export function resolver(...definitions: EnvDefinition[]): (id: string) => EnvDefinition {
  return (id) => {
    const found = definitions.find((definition) => definition.spec.id === id);
    if (!found) throw new EnvError('ENV_UNKNOWN', `unknown env "${id}"`);
    return found;
  };
}

/** Plays `taskId` with the definition's oracle until the episode ends; returns every result. */
export async function playWithOracle(definition: EnvDefinition, env: Env, taskId: string, seed = 7): Promise<unknown[]> {
  const oracle = definition.oracle!(env);
  const results: unknown[] = [await env.reset({ taskId, seed })];
  for (;;) {
    const result = await env.step(await oracle.next());
    results.push(result);
    if (result.terminated || result.truncated) return results;
  }
}
