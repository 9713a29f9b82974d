import type { Command } from 'commander';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { babyaiStart } from '../../actors/training/presets.ts';
import { getEnv } from '../../envs/index.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import { percent, table } from '../output.ts';
import { addDashboardOptions, type DashboardCliOptions } from './dashboard.ts';
import { defaultRunDir, runTraining } from './train.ts';

/**
 * `npm start`: trains the transformer agent from scratch with GRPO on BabyAI under a
 * ScalingInter horizon schedule sized for about 10 minutes on 2 cores, evaluates it on the test
 * split, and prints it next to the random baseline (same split, seed and horizon).
 */

export function registerStart(program: Command): void {
  addDashboardOptions(program.command('start', { isDefault: true }))
    .description('the main job with working defaults (npm start): train GRPO on BabyAI (~10 min on 2 cores), evaluate, compare with random')
    .option('--out <dir>', 'run directory (default runs/<timestamp>)')
    .action(async (options: { out?: string } & DashboardCliOptions) => {
      const env = getEnv('babyai');
      const out = options.out ?? defaultRunDir();
      const { schedule, steps } = babyaiStart;
      process.stderr.write(`training GRPO on BabyAI from scratch: ${steps} learner steps, horizon schedule ${String(schedule)}, run dir ${out}\n`);
      const trained = await runTraining({ ...babyaiStart, env, out }, options);
      if (trained.evaluation === undefined) {
        console.log(`training ${trained.status} after step ${trained.steps}; no evaluation. Run dir: ${trained.out}`);
        return;
      }
      const horizon = trained.evaluation.horizon;
      process.stderr.write(`running the random baseline on the ${env.spec.splits.test} test tasks (horizon ${horizon})…\n`);
      const random = await createRolloutSystem({ env, agent: 'random', split: 'test', seed: 0, concurrency: 32, schedule: `fixed:${horizon}` }).run();
      const row = (name: string, s: Omit<RolloutSummary, 'results'>) => [
        name, String(s.episodes), percent(s.successRate), s.meanReward.toFixed(3), s.meanTurns.toFixed(2), String(s.outcomes.aborted),
      ];
      console.log(`\nBabyAI test split, horizon ${horizon}, seed 0\n` + table([
        ['agent', 'episodes', 'success', 'mean reward', 'mean turns', 'aborted'],
        row(`GRPO transformer (${trained.steps} steps, ${trained.trainSeconds.toFixed(0)} s)`, trained.evaluation),
        row('random', random),
      ]));
      console.log(`\nrun dir:    ${trained.out}\ncheckpoint: ${trained.checkpoint}\nmetrics:    ${trained.metricsFile} (one line per learner step)\n` +
        `trajectories: ${trained.out}/trajectories/\n\nNext: npx actorgym eval --checkpoint ${trained.out} --json · npx actorgym train --help`);
    });
}
