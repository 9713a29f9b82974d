/**
 * An env family made slow on purpose, for demos and browser tests of the episode board: a real
 * env (BabyAI) whose every step takes `stepMs`, and whose episodes of one task stall for
 * `stallMs` on their first step, so the board shows episodes in flight and a stall alarm.
 */
import type { Env, EnvDefinition, ResetOptions, StepResult } from '../../envs/contract.ts';

export interface SlowEnvOptions {
  /** Added to every step (ms). */
  readonly stepMs: number;
  /** Episodes of this task stall on their first step. */
  readonly stallTaskId?: string;
  readonly stallMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function slowEnv(definition: EnvDefinition, options: SlowEnvOptions): EnvDefinition {
  return {
    spec: definition.spec,
    tasks: (split) => definition.tasks(split),
    make: () => new SlowEnv(definition.make(), options),
  };
}

class SlowEnv implements Env {
  private taskId = '';
  private turn = 0;

  constructor(
    private readonly inner: Env,
    private readonly options: SlowEnvOptions,
  ) {}

  get spec() {
    return this.inner.spec;
  }

  reset(options: ResetOptions) {
    this.taskId = options.taskId;
    this.turn = 0;
    return this.inner.reset(options);
  }

  async step(action: string): Promise<StepResult> {
    const stall = this.turn === 0 && this.taskId === this.options.stallTaskId;
    this.turn++;
    await sleep(stall ? (this.options.stallMs ?? 0) : this.options.stepMs);
    return this.inner.step(action);
  }

  close() {
    return this.inner.close();
  }
}
