/**
 * The baseline of `bench llm-rollout`: a rollout in AgentGym-RL's lock-step shape, without the
 * actor runtime. A batch of `width` episodes advances in rounds: every live episode gets one
 * policy decision (all asked for at once, in one `act` call), the round waits for all of them
 * (its slowest call), then every env steps, and only then are finished episodes replaced by new
 * ones, which join at the next round. AgentGym-RL also sleeps 1 s per round; this baseline does not.
 *
 * It plays the same slots as `createRolloutSystem` (task `tasks[slot % n]`, seed
 * `deriveSeed(seed, slot)`, a horizon of `horizon` decisions), so the two schemes play the same
 * episodes when the policy is deterministic.
 */
import type { Env, EnvDefinition, Split } from '../envs/contract.ts';
import { deriveSeed } from '../machines/seed.ts';
import type { ActRequest, Policy } from '../policy/policy.ts';

export interface LockStepOptions {
  readonly split: Split;
  readonly episodes: number;
  /** Episodes in the batch (live at once). */
  readonly width: number;
  readonly horizon: number;
  readonly seed: number;
}

export interface LockStepResult {
  readonly episodes: number;
  readonly successes: number;
  readonly turns: number;
  readonly rounds: number;
  readonly seconds: number;
}

interface Live {
  readonly episodeId: string;
  readonly seed: number;
  readonly env: Env;
  turn: number;
  observation: string;
  availableActions: readonly string[] | undefined;
}

export async function lockStepRollout(definition: EnvDefinition, policy: Policy, options: LockStepOptions): Promise<LockStepResult> {
  const tasks = definition.tasks(options.split);
  const envs = Array.from({ length: options.width }, () => definition.make());
  let next = 0;
  let successes = 0;
  let turns = 0;
  let rounds = 0;
  const start = performance.now();

  const begin = async (env: Env): Promise<Live | undefined> => {
    if (next >= options.episodes) return undefined;
    const slot = next++;
    const seed = deriveSeed(options.seed, slot);
    const reset = await env.reset({ taskId: tasks[slot % tasks.length] as string, seed });
    return { episodeId: `lockstep-s${slot}`, seed, env, turn: 0, observation: reset.observation, availableActions: reset.info.availableActions };
  };

  try {
    let live = (await Promise.all(envs.map(begin))).filter((e): e is Live => e !== undefined);
    while (live.length > 0) {
      rounds += 1;
      const requests: ActRequest[] = live.map((e) =>
        e.availableActions
          ? { episodeId: e.episodeId, turn: e.turn, observation: e.observation, availableActions: e.availableActions, seed: e.seed }
          : { episodeId: e.episodeId, turn: e.turn, observation: e.observation, seed: e.seed },
      );
      const decisions = await policy.act(requests);
      const steps = await Promise.all(live.map((e, i) => e.env.step((decisions[i] as { action: string }).action)));
      const still: Live[] = [];
      const freed: Env[] = [];
      live.forEach((e, i) => {
        const step = steps[i] as (typeof steps)[number];
        turns += 1;
        e.turn += 1;
        e.observation = step.observation;
        e.availableActions = step.info.availableActions;
        if (step.terminated || step.truncated || e.turn >= options.horizon) {
          if (step.terminated && (step.info.success ?? step.reward > 0)) successes += 1;
          policy.release(e.episodeId);
          freed.push(e.env);
        } else {
          still.push(e);
        }
      });
      // The round boundary: only now do freed envs take new episodes.
      const joined = (await Promise.all(freed.map(begin))).filter((e): e is Live => e !== undefined);
      live = [...still, ...joined];
    }
  } finally {
    await Promise.all(envs.map((env) => env.close()));
  }
  return { episodes: next, successes, turns, rounds, seconds: (performance.now() - start) / 1000 };
}
