/**
 * A learner step end to end on BabyAI: the share of a step spent in rollout versus learning, and
 * the learner's trained tokens/s, for the `npm start` configuration at a fixed horizon, with the
 * learner on one thread and on two (learner/data-parallel.ts), side by side. No assertions; the
 * machine is shared, so read the medians.
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

interface StepTimes {
  readonly rollout: number;
  readonly learn: number;
  readonly tokensPerSec: number;
  readonly decisions: number;
  readonly steps: number;
}

async function timeSteps(steps: number, horizon: number, learnerThreads: number): Promise<StepTimes> {
  const out = mkdtempSync(path.join(tmpdir(), 'actorgym-bench-learner-'));
  const rows: Record<string, number>[] = [];
  try {
    const training = createTrainingSystem({
      ...babyaiStart, env: 'babyai', backend: 'wasm', learnerThreads, steps, schedule: `fixed:${horizon}`, evalEpisodes: 0, checkpointEvery: 0, out,
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
  return {
    rollout: median(timed.map((m) => m.rolloutSeconds ?? 0)),
    learn: median(timed.map((m) => m.learnSeconds ?? 0)),
    tokensPerSec: median(timed.map((m) => m.tokensPerSec ?? 0)),
    decisions: median(timed.map((m) => (m.episodes ?? 0) * (m.meanTurns ?? 0))),
    steps: timed.length,
  };
}

export async function runLearnerStepBench(options: { readonly steps?: number; readonly horizon?: number } = {}): Promise<void> {
  const steps = options.steps ?? 6;
  const horizon = options.horizon ?? 6;
  // Same seed, so both runs start from the same rollouts; the learner's second thread is the only difference.
  const one = await timeSteps(steps, horizon, 1);
  const two = await timeSteps(steps, horizon, 2);
  const f = (x: number, d = 1): string => x.toFixed(d);
  const share = (t: StepTimes, x: number) => `${f(x)} s (${f((100 * x) / (t.rollout + t.learn), 0)} %)`;
  const rowsOut: Array<[string, string, string]> = [
    ['rollout', share(one, one.rollout), share(two, two.rollout)],
    ['learning', share(one, one.learn), share(two, two.learn)],
    ['learner tokens/s', Math.round(one.tokensPerSec).toLocaleString('en-US'), `${Math.round(two.tokensPerSec).toLocaleString('en-US')} (×${f(two.tokensPerSec / one.tokensPerSec, 2)})`],
    ['step (rollout + learning)', `${f(one.rollout + one.learn)} s`, `${f(two.rollout + two.learn)} s (×${f((one.rollout + one.learn) / (two.rollout + two.learn), 2)} faster)`],
    ['decisions per step', String(Math.round(one.decisions)), String(Math.round(two.decisions))],
  ];
  console.log(`learner step on BabyAI, npm-start config, horizon ${horizon}, ${babyaiStart.tasksPerStep}×${babyaiStart.groupSize} episodes (medians of ${one.steps} steps)`);
  const w0 = Math.max(...rowsOut.map((r) => r[0].length));
  const w1 = Math.max('learner on 1 thread'.length, ...rowsOut.map((r) => r[1].length));
  console.log(`  ${''.padEnd(w0)}  ${'learner on 1 thread'.padEnd(w1)}  learner on 2 threads`);
  for (const [a, b, c] of rowsOut) console.log(`  ${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
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
