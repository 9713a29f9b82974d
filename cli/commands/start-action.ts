/** What `actorgym start` does (its options are in start.ts). */
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { babyaiStart } from '../../actors/training/presets.ts';
import { getEnv } from '../../envs/index.ts';
import { readCheckpointStep } from '../../learner/checkpoint/read.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import { defaultRunDir } from '../default-run-dir.ts';
import { refuseExistingRun } from '../existing-run-guard.ts';
import { INTERRUPTED_EXIT_CODE, onInterrupt } from '../interrupt.ts';
import { percent, table } from '../output.ts';
import { wholeRunSeconds } from '../whole-run.ts';
import { reportInterruptedTraining, runTraining } from './train-action.ts';
import type { StartOptions } from './start.ts';

export async function runStart(options: StartOptions): Promise<void> {
  const env = getEnv('babyai');
  const where: { resume?: string; out?: string } =
    options.resume !== undefined ? { resume: options.resume, ...(options.out !== undefined ? { out: options.out } : {}) } : { out: options.out ?? defaultRunDir() };
  await refuseExistingRun({ command: 'start', out: options.out, resume: options.resume });
  const { schedule, steps } = babyaiStart;
  // A resumed run says where it picks up (issue 35), read from the checkpoint it continues.
  const fromStep = where.resume !== undefined ? await readCheckpointStep(where.resume) : 0;
  const start = fromStep > 0 ? `resuming from step ${fromStep} of ${steps}` : `from scratch: ${steps} learner steps`;
  process.stderr.write(
    `training GRPO on BabyAI ${start}, horizon schedule ${String(schedule)}, ` +
      `${where.resume !== undefined ? `run ${where.resume}` : `run dir ${where.out}`}\n`,
  );
  const { summary: trained, interrupted } = await runTraining({ ...babyaiStart, env, ...where }, options);
  if (interrupted) {
    console.log(`training ${trained.status} after step ${trained.steps}. Run dir: ${trained.out ?? '-'}`);
    reportInterruptedTraining(trained);
    return;
  }
  if (trained.evaluation === undefined) {
    console.log(`training ${trained.status} after step ${trained.steps}; no evaluation. Run dir: ${trained.out}`);
    return;
  }
  const horizon = trained.evaluation.horizon;
  process.stderr.write(`running the random baseline on the ${env.spec.splits.test} test tasks (horizon ${horizon})…\n`);
  const baseline = createRolloutSystem({ env, agent: 'random', split: 'test', seed: 0, concurrency: 32, schedule: `fixed:${horizon}` });
  const interrupt = onInterrupt('stopping the random baseline', () => baseline.stop('interrupted (SIGINT)'));
  const random = await baseline.run().finally(() => interrupt.dispose());
  const row = (name: string, s: Omit<RolloutSummary, 'results'>) => [
    name, String(s.episodes), percent(s.successRate), s.meanReward.toFixed(3), s.meanTurns.toFixed(2), String(s.outcomes.aborted),
  ];
  console.log(`\nBabyAI test split, horizon ${horizon}, seed 0\n` + table([
    ['agent', 'episodes', 'success rate', 'mean reward', 'mean turns', 'aborted'],
    row(`GRPO transformer (${trained.steps} steps, ${wholeRunSeconds(trained).toFixed(0)} s)`, trained.evaluation),
    row(`random${interrupt.interrupted ? ' (interrupted)' : ''}`, random),
  ]));
  console.log(`\nrun dir:    ${trained.out}\ncheckpoint: ${trained.checkpoint}\nmetrics:    ${trained.metricsFile} (one line per learner step)\n` +
    `trajectories: ${trained.out}/trajectories/\n\nNext: npx actorgym eval --checkpoint ${trained.out} --json · npx actorgym train --help`);
  if (interrupt.interrupted) process.exitCode = INTERRUPTED_EXIT_CODE;
}
