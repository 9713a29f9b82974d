/**
 * CPU and GC time per env step of an in-process BabyAI rollout with the random agent (64
 * concurrent episodes, 512 a round), round after round in one process: the actor runtime, or the
 * bare loop of bench/bare-rollout.ts. It shows how long the runtime takes to warm up and what GC
 * costs it, and serves A/B runs of V8 flags or of two checkouts in alternating processes:
 *
 *   npx tsx bench/runtime-rounds.ts runtime 12
 *   NODE_OPTIONS=--max-semi-space-size=32 npx tsx bench/runtime-rounds.ts runtime 12
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { getEnv } from '../envs/index.ts';
import { bareRollout } from './bare-rollout.ts';
import { median } from './stats.ts';

const USAGE = 'npx tsx bench/runtime-rounds.ts [runtime|bare] [ROUNDS=12]';
const mode = process.argv[2] ?? 'runtime';
const rounds = Number(process.argv[3] ?? 12);
if ((mode !== 'runtime' && mode !== 'bare') || !Number.isInteger(rounds) || rounds < 4) {
  console.error(`usage: ${USAGE} (at least 4 rounds: the first 3 are warm-up)`);
  process.exit(1);
}

const env = getEnv('babyai');
let gcMillis = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMillis += entry.duration;
}).observe({ entryTypes: ['gc'] });

const cpu: number[] = [];
const cells: string[] = [];
for (let round = 0; round < rounds; round++) {
  gcMillis = 0;
  const before = process.cpuUsage();
  let steps: number;
  if (mode === 'bare') {
    ({ steps } = await bareRollout(env, { split: 'train', episodes: 512, concurrency: 64, seed: 1, horizon: env.spec.defaultHorizon }));
  } else {
    const summary = await createRolloutSystem({ env, agent: 'random', split: 'train', episodes: 512, concurrency: 64, seed: 1 }).run();
    steps = summary.meanTurns * summary.episodes;
  }
  const used = process.cpuUsage(before);
  const micros = (used.user + used.system) / steps;
  cpu.push(micros);
  cells.push(`${micros.toFixed(1)}/${((gcMillis * 1000) / steps).toFixed(1)}`);
}
console.log(`${mode}: CPU / GC pause µs per env step, round by round: ${cells.join(' ')}`);
console.log(`${mode}: median CPU µs per env step after 3 warm-up rounds: ${median(cpu.slice(3)).toFixed(1)}`);
