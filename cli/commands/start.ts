import type { Command } from 'commander';
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { getEnv } from '../../envs/index.ts';
import { percent, table } from '../output.ts';

/**
 * `npm start`: the main job with defaults that work out of the box. Until the learner lands it
 * runs the BabyAI test split with the random baseline and the oracle, side by side.
 */
export function registerStart(program: Command): void {
  program
    .command('start', { isDefault: true })
    .description('the main job with working defaults (npm start): BabyAI test split, random baseline vs oracle')
    .action(async () => {
      const env = getEnv('babyai');
      const rows: string[][] = [];
      for (const agent of ['random', 'oracle'] as const) {
        process.stderr.write(`running ${env.spec.splits.test} BabyAI test episodes with the ${agent} agent…\n`);
        const summary = await createRolloutSystem({ env, agent, split: 'test', seed: 0, concurrency: 32 }).run();
        rows.push([
          agent,
          String(summary.episodes),
          percent(summary.successRate),
          summary.meanReward.toFixed(3),
          summary.meanTurns.toFixed(2),
          String(summary.outcomes.aborted),
        ]);
      }
      console.log(table([['agent', 'episodes', 'success', 'mean reward', 'mean turns', 'aborted'], ...rows]));
      console.log('\nNext: `npx actorgym rollout --help`, `npx actorgym serve babyai`, docs/protocol.md');
    });
}
