/**
 * `actorgym start` (what `npm start` runs): trains the transformer agent from scratch with GRPO on
 * BabyAI under a ScalingInter horizon schedule sized for about 2 minutes of training on 2 cores,
 * evaluates it on the test split, and prints it next to the random baseline (same split, seed and
 * horizon).
 * Its options and help; what it does is in start-action.ts, imported when it runs.
 */
import type { Command } from 'commander';
import { addDashboardOptions, type DashboardCliOptions } from './dashboard.ts';
import { stopHelpText } from '../stop-help.ts';

export interface StartOptions extends DashboardCliOptions {
  out?: string;
  resume?: string;
}

export function registerStart(program: Command): void {
  addDashboardOptions(program.command('start'))
    .description('the main job with working defaults (npm start): train GRPO on BabyAI (about 2 minutes of training on 2 cores), evaluate, compare with random')
    .option('--out <dir>', 'run directory (default runs/<timestamp>)')
    .option('--resume <dir>', 'continue an interrupted `start` run from its checkpoint (Ctrl-C prints this command)')
    .addHelpText('after', `
${stopHelpText('training')}\n`)
    .action(async (options: StartOptions) => (await import('./start-action.ts')).runStart(options));
}
