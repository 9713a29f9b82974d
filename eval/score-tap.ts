/**
 * Keeps the env's own score (`info.score`, SciWorld's 0–100) of each env instance's latest reset
 * or step. The episode's trajectory keeps rewards, not info, so an evaluation wraps its env
 * definition and reads the score of the env an episode ran on when the episode finishes
 * (`RolloutSystemOptions.onEpisode` hands that env over).
 */
import type { Env, EnvDefinition, ResetOptions, ResetResult, StepResult } from '../envs/contract.ts';

export class ScoreTapEnv implements Env {
  /** The score of the latest reset or step; undefined when the env reports none. */
  score: number | undefined;

  constructor(readonly inner: Env) {}

  get spec() {
    return this.inner.spec;
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    this.score = undefined;
    const result = await this.inner.reset(options);
    this.score = result.info.score;
    return result;
  }

  async step(action: string): Promise<StepResult> {
    const result = await this.inner.step(action);
    this.score = result.info.score;
    return result;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The same definition, making tapped envs; its oracle reads the inner env, as it expects. */
export function tapScores(definition: EnvDefinition): EnvDefinition {
  const { oracle } = definition;
  return {
    spec: definition.spec,
    tasks: (split) => definition.tasks(split),
    make: () => new ScoreTapEnv(definition.make()),
    ...(definition.categoryOf ? { categoryOf: (taskId: string) => definition.categoryOf!(taskId) } : {}),
    ...(oracle ? { oracle: (env: Env) => oracle.call(definition, env instanceof ScoreTapEnv ? env.inner : env) } : {}),
  };
}

/** The score an episode ended with, if it ran on a tapped env that reports one. */
export const scoreOf = (env: Env | undefined): number | undefined => (env instanceof ScoreTapEnv ? env.score : undefined);
