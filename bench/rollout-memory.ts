/**
 * Peak live heap of a long in-process rollout (BabyAI, random agent, 64 concurrent episodes):
 * what a run keeps in memory while it goes on. Sampled every 200 ms after a full GC, so the
 * figure is live data, not garbage waiting for collection.
 *
 *   node --expose-gc --import tsx bench/rollout-memory.ts [EPISODES=8192]
 *   npx actorgym bench rollout-memory
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { table } from '../charts/text-table.ts';
import { getEnv } from '../envs/index.ts';

export async function runRolloutMemoryBench(episodes = 8192): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const timer = setInterval(() => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 200);
  const summary = await createRolloutSystem({ env: getEnv('babyai'), agent: 'random', split: 'train', episodes, concurrency: 64, seed: 1 }).run();
  clearInterval(timer);
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  console.log(`BabyAI train split, random agent, 64 concurrent episodes, live heap after a full GC every 200 ms\n`);
  console.log(
    table([
      ['episodes', 'env steps', 'live heap before (MB)', 'peak live heap during the run (MB)', 'growth (MB)'],
      [String(summary.episodes), (summary.meanTurns * summary.episodes).toFixed(0), mb(before), mb(peak), mb(peak - before)],
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const episodes = Number(process.argv[2] ?? 8192);
  if (!Number.isInteger(episodes) || episodes < 1) {
    console.error(`EPISODES must be a positive integer, got ${process.argv[2]}`);
    process.exit(2);
  }
  await runRolloutMemoryBench(episodes);
}
