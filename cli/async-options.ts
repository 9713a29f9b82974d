/**
 * `--async`, `--max-staleness` and `--importance-cap` of `train`: asynchronous training
 * (TrainingConfig.async, learner/async-settings.ts). The two settings need `--async`; without it
 * training is synchronous, as before.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { asyncDefaults, type AsyncSettings } from '../learner/async-settings.ts';
import { nonNegativeInt } from './output.ts';

export interface AsyncCliOptions {
  async?: boolean;
  maxStaleness?: number;
  importanceCap?: number;
}

function atLeastOne(name: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!(text.trim() !== '' && Number.isFinite(value) && value >= 1)) throw new InvalidArgumentError(`${name} must be a number ≥ 1, got "${text}"`);
    return value;
  };
}

export function addAsyncOptions(command: Command): Command {
  return command
    .option(
      '--async',
      'asynchronous training: rollouts of the next steps run while the learner trains, on weights up to --max-staleness versions old; ' +
        'the loss corrects for them (decoupled PPO with truncated importance weights, docs/training.md). Off: synchronous',
    )
    .option(
      '--max-staleness <k>',
      `with --async: how many versions a trajectory group's weights may lag the learner's; older groups are dropped and counted; 0 = none (default ${asyncDefaults.maxStaleness})`,
      nonNegativeInt('--max-staleness'),
    )
    .option(
      '--importance-cap <c>',
      `with --async: truncate each token's importance weight π_learner/π_sampler at C ≥ 1; lower is less variance, more bias (default ${asyncDefaults.importanceCap})`,
      atLeastOne('--importance-cap'),
    );
}

/** The async settings the flags give (defaults filled in), or none; a setting without --async is an error. */
export function givenAsyncConfig(o: AsyncCliOptions): { async?: AsyncSettings } {
  if (o.async !== true) {
    const stray = o.maxStaleness !== undefined ? '--max-staleness' : o.importanceCap !== undefined ? '--importance-cap' : undefined;
    if (stray !== undefined) throw new Error(`${stray} is a setting of asynchronous training: give --async too`);
    return {};
  }
  return {
    async: {
      maxStaleness: o.maxStaleness ?? asyncDefaults.maxStaleness,
      importanceCap: o.importanceCap ?? asyncDefaults.importanceCap,
    },
  };
}
