/**
 * µs per BabyAI env step in a bare loop: the random agent over the train split, one episode after
 * another, every result serialised with `JSON.stringify` as a server would. Median of 5 runs of
 * 600 episodes after a warm-up. Small and standalone so that it can be run in a checkout of each
 * commit, alternating, for an A/B of env changes:
 *
 *   git worktree add /tmp/old REV && ln -s "$PWD/node_modules" /tmp/old/node_modules
 *   for i in 1 2 3; do (cd /tmp/old && npx tsx bench/babyai-step.ts); npx tsx bench/babyai-step.ts; done
 *
 * (An older checkout without this file takes a copy of it.)
 */
import { getEnv } from '../envs/index.ts';
import { RandomPolicy } from '../policy/random-policy.ts';

const definition = getEnv('babyai');
const tasks = definition.tasks('train');

async function microsPerStep(episodes: number): Promise<number> {
  const policy = new RandomPolicy();
  const start = performance.now();
  let steps = 0;
  for (let e = 0; e < episodes; e++) {
    const env = definition.make();
    let { observation, info } = await env.reset({ taskId: tasks[e % tasks.length] as string, seed: e });
    for (let turn = 0; turn < 64; turn++) {
      const [decision] = await policy.act([
        { episodeId: `e${e}`, turn, observation, seed: e, ...(info.availableActions ? { availableActions: info.availableActions } : {}) },
      ]);
      const result = await env.step(decision?.action ?? '');
      steps += 1;
      ({ observation, info } = result);
      JSON.stringify(result);
      if (result.terminated || result.truncated) break;
    }
    policy.release?.(`e${e}`);
    await env.close();
  }
  return ((performance.now() - start) * 1000) / steps;
}

await microsPerStep(300);
const runs: number[] = [];
for (let i = 0; i < 5; i++) runs.push(await microsPerStep(600));
const sorted = [...runs].sort((a, b) => a - b);
console.log(`babyai bare loop: ${(sorted[2] as number).toFixed(1)} µs per env step (median of 5; runs ${runs.map((r) => r.toFixed(1)).join(', ')})`);
