/** What `actorgym train` does (its options are in train.ts); `runTraining` is shared with `start`. */
import type { Command } from 'commander';
import { createTrainingSystem, type TrainingOptions, type TrainingSummary } from '../../actors/training-system.ts';
import type { TrainingOptionsConfig } from '../../learner/training-config.ts';
import { getPreset, withPreset } from '../../actors/training/presets.ts';
import { givenAsyncConfig } from '../async-options.ts';
import { closeRemote } from '../close-remote.ts';
import { defaultRunDir } from '../default-run-dir.ts';
import { refuseExistingRun } from '../existing-run-guard.ts';
import { INTERRUPTED_EXIT_CODE, interruptReason, onInterrupt } from '../interrupt.ts';
import { abortBudget, enforceMaxAborted, maxAbortedReason, reasonList, type UnscoredCount } from '../max-aborted.ts';
import { givenModelConfig } from '../model-options.ts';
import { givenPolicyConfig, policyOfCheckpoint } from '../policy-options.ts';
import { percent, printJson, table } from '../output.ts';
import { resolveCommandEnv } from '../remote-options.ts';
import { resumeCommand } from '../resume-command.ts';
import { serveTrainingDashboard } from '../training-dashboard.ts';
import { showTrainingProgress } from '../training-progress.ts';
import { wholeRunSeconds } from '../whole-run.ts';
import { checkDashboardHost, type DashboardCliOptions } from './dashboard.ts';
import type { TrainCliOptions } from './train.ts';

/** The run configuration the user gave explicitly (so that --resume can tell a conflict from a default). */
function givenConfig(command: Command, o: TrainCliOptions): TrainingOptionsConfig {
  const given = (key: keyof TrainCliOptions): boolean => command.getOptionValueSource(key) === 'cli';
  const pick = <K extends keyof TrainCliOptions>(key: K): Partial<Record<K, TrainCliOptions[K]>> =>
    given(key) ? ({ [key]: o[key] } as Partial<Record<K, TrainCliOptions[K]>>) : {};
  return {
    ...pick('algo'), ...pick('schedule'), ...pick('seed'), ...pick('tasksPerStep'), ...pick('groupSize'), ...pick('concurrency'),
    ...pick('lr'), ...pick('epochs'), ...pick('minibatch'), ...pick('temperature'), ...pick('klCoef'), ...pick('entropyCoef'),
    ...pick('checkpointEvery'), ...pick('stdNorm'), ...pick('evalEpisodes'), ...pick('evalTemperature'), ...pick('evalHorizon'),
    ...givenModelConfig(command, o),
    ...givenPolicyConfig(o),
    ...givenAsyncConfig(o),
  } as TrainingOptionsConfig;
}

/** `extra`: training options a command built on `train` adds (`learner`: its producer). */
export async function runTrain(options: TrainCliOptions, command: Command, extra: Readonly<Record<string, unknown>> = {}): Promise<void> {
  // Before anything starts: a run in --out is never started over (issue 40, finding 3).
  await refuseExistingRun({ command: 'train', out: options.out, resume: options.resume });
  checkDashboardHost(options);
  options.policy ??= await policyOfCheckpoint(options.resume ?? options.init);
  givenAsyncConfig(options); // a stray --max-staleness fails before an env starts
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const env = await resolveCommandEnv(options.env, options, token, options.envTimeout);
  const testTasks = env.tasks('test').length;
  if (options.evalEpisodes !== undefined && options.evalEpisodes > testTasks) {
    await closeRemote(env);
    throw new Error(`--eval-episodes ${options.evalEpisodes} is past the ${testTasks} tasks of the test split of ${env.spec.id}; give ${testTasks} or less (or leave it out for the whole split)`);
  }
  const out = options.out ?? (options.resume === undefined ? defaultRunDir() : undefined);
  const preset = options.preset !== undefined ? getPreset(options.preset) : undefined;
  const steps = options.steps ?? preset?.steps;
  if (steps === undefined) command.error("error: required option '--steps <n>' not specified (or give --preset)");
  const trainingOptions: TrainingOptions = {
    ...withPreset(preset, givenConfig(command, options)),
    env,
    steps,
    backend: options.backend,
    ...(options.learnerThreads !== undefined ? { learnerThreads: Number(options.learnerThreads) } : {}),
    ...(options.maxMinutes !== undefined ? { maxMinutes: options.maxMinutes } : {}),
    ...(out !== undefined ? { out } : {}),
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    ...(options.init !== undefined ? { init: options.init } : {}),
    envTimeoutMs: options.envTimeout,
    maxLostRetries: options.maxLostRetries,
    ...extra,
  };
  const { summary, interrupted } = await runTraining(trainingOptions, options);
  // Training steps never run short (they pause instead); the test evaluation is a rollout like any other.
  const unscored = unscoredTestEpisodes(summary);
  const overBudget = !interrupted && unscored !== undefined && maxAbortedReason(unscored, options.maxAborted, 'test episodes') !== undefined;
  if (options.json) printJson({ ...summary, maxAborted: abortBudget(options.maxAborted, overBudget) });
  else printTrainingSummary(summary, { scoredOnly: overBudget });
  if (interrupted) reportInterruptedTraining(summary);
  else if (unscored !== undefined) enforceMaxAborted(unscored, options.maxAborted, 'test episodes');
  await closeRemote(env);
}

/** The test evaluation's slots without a scored outcome, for --max-aborted; undefined without an evaluation. */
function unscoredTestEpisodes({ evaluation }: TrainingSummary): UnscoredCount | undefined {
  if (!evaluation) return undefined;
  const scored = evaluation.outcomes.success + evaluation.outcomes.failure + evaluation.outcomes.truncated;
  return { unscored: evaluation.slots - scored, total: evaluation.slots, detail: `aborted attempts: ${reasonList(evaluation.abortReasons) || 'none'}` };
}

/**
 * Runs a training system with progress on stderr and SIGINT or SIGTERM as a graceful stop (after
 * the current learner step, with a checkpoint, or the test evaluation's running episodes); shared
 * with `start` and `learner`.
 */
export async function runTraining(options: TrainingOptions, dashboardOptions: DashboardCliOptions = {}): Promise<{ summary: TrainingSummary; interrupted: boolean }> {
  const training = createTrainingSystem(options);
  const dashboard = await serveTrainingDashboard(training.events, dashboardOptions);
  const progress = showTrainingProgress(training.events, options.steps);
  const pauses = training.events.subscribe((event) => {
    if (event.type === 'training.paused') process.stderr.write(`step ${event.step}: paused, ${event.slots} slot(s) to collect again; ${event.reason}; waiting for a server\n`);
    if (event.type === 'training.resumed') process.stderr.write(`step ${event.step}: resumed after ${event.pausedSeconds.toFixed(1)} s\n`);
  });
  let evaluating = false;
  const phase = training.events.subscribe((event) => {
    if (event.type === 'training.finished') evaluating = true;
  });
  const interrupt = onInterrupt(
    () => (evaluating ? 'stopping the test evaluation: no new episodes; running ones end as aborted' : 'stopping after the current learner step, with a checkpoint'),
    (signal) => training.stop(interruptReason(signal)),
  );
  try {
    const summary = await training.run();
    return { summary, interrupted: interrupt.interrupted };
  } finally {
    interrupt.dispose();
    phase.unsubscribe();
    progress.unsubscribe();
    pauses.unsubscribe();
    await dashboard.close();
  }
}

/**
 * After Ctrl-C or SIGTERM: how far the run got and the command that continues it (a stopped run), or what the
 * cut evaluation covers (a finished run). Sets exit code 130. Written on stderr, so --json stays JSON.
 */
export function reportInterruptedTraining(s: TrainingSummary, args: readonly string[] = process.argv.slice(2)): void {
  process.exitCode = INTERRUPTED_EXIT_CODE;
  if (s.status === 'stopped') {
    const where = s.out ?? s.checkpoint;
    const next = where !== undefined ? `; continue it with:\n  ${resumeCommand(args, where)}` : ' (no run directory, nothing to resume)';
    process.stderr.write(`interrupted after learner step ${s.steps}${s.checkpoint !== undefined ? `, checkpoint ${s.checkpoint}` : ''}${next}\n`);
    return;
  }
  const e = s.evaluation;
  const scored = e ? e.outcomes.success + e.outcomes.failure + e.outcomes.truncated : 0;
  process.stderr.write(
    `interrupted during the test evaluation: ${scored} of ${e?.slots ?? 0} test episodes scored (the test numbers above are over those); ` +
      `training finished at step ${s.steps}${s.checkpoint !== undefined ? `, checkpoint ${s.checkpoint}` : ''}` +
      `${s.out !== undefined ? `; evaluate it in full with: npx actorgym eval --checkpoint ${s.out}` : ''}\n`,
  );
}

/**
 * The summary table. `scoredOnly`: the test evaluation went past --max-aborted, so its success
 * rate is labelled as over scored episodes only, beside the share never scored (issue 40, finding 7).
 */
export function printTrainingSummary(s: TrainingSummary, { scoredOnly = false }: { scoredOnly?: boolean } = {}): void {
  const m = s.lastMetrics;
  const e = s.evaluation;
  const neverScored = scoredOnly && e ? [`${percent(e.abortedShare)} of ${e.slots}`] : [];
  console.log(
    `${s.env}, ${s.algo}, ${s.steps} learner steps (${s.status}${s.fromStep > 0 ? `, resumed at step ${s.fromStep}` : ''}) on tfjs-${s.backend} in ${wholeRunSeconds(s).toFixed(0)} s\n` +
      table([
        ['last step success rate', 'last step loss', neverScored.length > 0 ? 'test success rate (scored only)' : 'test success rate', ...(neverScored.length > 0 ? ['test never scored'] : []), 'test mean reward', 'test mean turns'],
        [
          m ? percent(m.successRate ?? 0) : '-',
          m ? (m.loss ?? 0).toFixed(4) : '-',
          s.testSuccessRate !== undefined ? percent(s.testSuccessRate) : '-',
          ...neverScored,
          s.testMeanReward !== undefined ? s.testMeanReward.toFixed(3) : '-',
          s.testMeanTurns !== undefined ? s.testMeanTurns.toFixed(2) : '-',
        ],
      ]),
  );
  if (s.out) console.log(`\nrun: ${s.out}\ncheckpoint: ${s.checkpoint ?? '-'}\nmetrics: ${s.metricsFile ?? '-'}`);
}
