/**
 * Env steps/s of every registered env, in-process, with the random agent: the bare env (one
 * episode after another, reset included, the random policy called per step) next to the same
 * episodes through the actor runtime (createRolloutSystem, 64 concurrent episodes). Train split,
 * each env's default horizon. Median of 3 runs after a warm-up; no assertions.
 *
 *   npx actorgym bench env-steps
 */
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { listEnvs } from '../envs/index.ts';
import type { EnvDefinition } from '../envs/contract.ts';
import { RandomPolicy } from '../policy/random-policy.ts';
import { table } from '../charts/text-table.ts';
import { median, repeat } from './stats.ts';

const EPISODES = 256;

async function bare(env: EnvDefinition): Promise<number> {
  const tasks = env.tasks('train');
  const policy = new RandomPolicy();
  const start = performance.now();
  let steps = 0;
  for (let e = 0; e < EPISODES; e++) {
    const instance = env.make();
    let { observation, info } = await instance.reset({ taskId: tasks[e % tasks.length]!, seed: e });
    for (let turn = 0; turn < env.spec.defaultHorizon; turn++) {
      const [decision] = await policy.act([
        { episodeId: `e${e}`, turn, observation, seed: e, ...(info.availableActions ? { availableActions: info.availableActions } : {}) },
      ]);
      const result = await instance.step(decision!.action);
      steps += 1;
      ({ observation, info } = result);
      if (result.terminated || result.truncated) break;
    }
    policy.release?.(`e${e}`);
    await instance.close();
  }
  return (steps * 1000) / (performance.now() - start);
}

async function runtime(env: EnvDefinition): Promise<number> {
  const start = performance.now();
  const summary = await createRolloutSystem({ env, agent: 'random', split: 'train', episodes: EPISODES, concurrency: 64, seed: 1 }).run();
  if (summary.outcomes.aborted > 0) throw new Error(`${summary.outcomes.aborted} ${env.spec.id} episodes aborted during the benchmark`);
  return (summary.meanTurns * summary.episodes * 1000) / (performance.now() - start);
}

export async function runEnvStepsBench(runs = 3): Promise<void> {
  const rows: string[][] = [];
  for (const env of listEnvs()) {
    const spec = env.spec;
    await bare(env);
    await runtime(env);
    const b = median(await repeat(runs, () => bare(env)));
    const r = median(await repeat(runs, () => runtime(env)));
    rows.push([spec.id, String(spec.defaultHorizon), Math.round(b).toLocaleString('en-US'), Math.round(r).toLocaleString('en-US'), (r / b).toFixed(2)]);
  }
  console.log(`Env steps/s, in-process, random agent, train split, ${EPISODES} episodes a run, median of ${runs} runs\n`);
  console.log(table([['env', 'horizon', 'bare env loop', 'actor runtime (64 concurrent)', 'runtime / bare'], ...rows]));
}
