/**
 * A learner step end to end on BabyAI: the share of a step spent in rollout versus learning, and
 * the learner's trained tokens/s, for the `npm start` configuration at a fixed horizon. No
 * assertions; the machine is shared, so read the medians.
 *
 *   npx tsx bench/learner-step.ts [--steps 6] [--horizon 6]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTrainingSystem } from '../actors/training-system.ts';
import { babyaiStart } from '../actors/training/presets.ts';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function runLearnerStepBench(options: { readonly steps?: number; readonly horizon?: number } = {}): Promise<void> {
  const steps = options.steps ?? 6;
  const horizon = options.horizon ?? 6;
  const out = mkdtempSync(path.join(tmpdir(), 'actorgym-bench-learner-'));
  const rows: Record<string, number>[] = [];
  try {
    const training = createTrainingSystem({
      ...babyaiStart, env: 'babyai', backend: 'wasm', steps, schedule: `fixed:${horizon}`, evalEpisodes: 0, checkpointEvery: 0, out,
    });
    training.events.subscribe((e) => {
      if (e.type === 'learner.stepped') rows.push(e.metrics);
    });
    await training.run();
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  // The first step pays for kernel warm-up; leave it out.
  const timed = rows.slice(1);
  const rollout = median(timed.map((m) => m.rolloutSeconds ?? 0));
  const learn = median(timed.map((m) => m.learnSeconds ?? 0));
  const f = (x: number, d = 1): string => x.toFixed(d);
  console.log(`learner step on BabyAI, npm-start config, horizon ${horizon}, ${babyaiStart.tasksPerStep}×${babyaiStart.groupSize} episodes (medians of ${timed.length} steps)`);
  console.log(`  rollout              ${f(rollout)} s   (${f((100 * rollout) / (rollout + learn), 0)} % of the step)`);
  console.log(`  learning             ${f(learn)} s   (${f((100 * learn) / (rollout + learn), 0)} % of the step)`);
  console.log(`  learner tokens/s     ${Math.round(median(timed.map((m) => m.tokensPerSec ?? 0))).toLocaleString('en-US')}`);
  console.log(`  decisions per step   ${Math.round(median(timed.map((m) => (m.episodes ?? 0) * (m.meanTurns ?? 0))))}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string): number | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const steps = arg('steps');
  const horizon = arg('horizon');
  await runLearnerStepBench({ ...(steps !== undefined ? { steps } : {}), ...(horizon !== undefined ? { horizon } : {}) });
}
