/**
 * The same rollout as `createRolloutSystem` with the random agent, without the actor runtime: a
 * plain async loop per concurrent episode calling the env and the policy directly. Run against a
 * transport, it measures what the transport's client costs alone, so the runtime benchmark can
 * tell the runtime's share of a step from the transport's.
 */
import type { EnvDefinition, Split } from '../envs/contract.ts';
import { deriveSeed } from '../machines/seed.ts';
import { RandomPolicy } from '../policy/random-policy.ts';

export interface BareRolloutOptions {
  readonly split: Split;
  readonly episodes: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly horizon: number;
}

export interface BareRolloutResult {
  readonly steps: number;
  readonly seconds: number;
}

export async function bareRollout(definition: EnvDefinition, options: BareRolloutOptions): Promise<BareRolloutResult> {
  const tasks = definition.tasks(options.split);
  const policy = new RandomPolicy();
  const envs = Array.from({ length: options.concurrency }, () => definition.make());
  let next = 0;
  let steps = 0;
  const start = performance.now();
  try {
    await Promise.all(
      envs.map(async (env) => {
        while (next < options.episodes) {
          const slot = next++;
          const episodeId = `${slot}`;
          // The run actor's seed for this slot, so these are the episodes the runtime plays.
          const seed = deriveSeed(options.seed, slot);
          const first = await env.reset({ taskId: tasks[slot % tasks.length] as string, seed });
          let observation = first.observation;
          let availableActions = first.info.availableActions;
          for (let turn = 0; turn < options.horizon; turn++) {
            const request = availableActions
              ? { episodeId, turn, observation, availableActions, seed }
              : { episodeId, turn, observation, seed };
            const [decision] = await policy.act([request]);
            const result = await env.step((decision as { action: string }).action);
            steps += 1;
            observation = result.observation;
            availableActions = result.info.availableActions;
            if (result.terminated || result.truncated) break;
          }
        }
      }),
    );
  } finally {
    await Promise.all(envs.map((env) => env.close()));
  }
  return { steps, seconds: (performance.now() - start) / 1000 };
}
