import { InvalidArgumentError, Option, type Command } from 'commander';
import { createTrainingSystem, type TrainingOptions, type TrainingSummary } from '../../actors/training-system.ts';
import type { TrainingOptionsConfig } from '../../actors/training/config.ts';
import { getPreset, presets, withPreset } from '../../actors/training/presets.ts';
import { ALGORITHMS } from '../../algorithms/index.ts';
import { BACKEND_PREFERENCES, type BackendPreference } from '../../policy/backend.ts';
import { closeRemote } from '../close-remote.ts';
import { addMaxAbortedOption, enforceMaxAborted, reasonList } from '../max-aborted.ts';
import { addRemoteOptions, resolveCommandEnv, type RemoteFlags } from '../remote-options.ts';
import { nonNegativeInt, nonNegativeNumber, percent, positiveInt, positiveNumber, printJson, table } from '../output.ts';
import { showTrainingProgress } from '../training-progress.ts';
import { addModelOptions, givenModelConfig, type ModelCliOptions } from '../model-options.ts';
import { addDashboardOptions, serveTrainingDashboard, type DashboardCliOptions } from './dashboard.ts';

interface TrainCliOptions extends DashboardCliOptions, RemoteFlags, ModelCliOptions {
  env: string;
  steps?: number;
  preset?: string;
  out?: string;
  resume?: string;
  init?: string;
  backend: BackendPreference;
  learnerThreads?: string;
  maxMinutes?: number;
  json?: boolean;
  token?: string;
  envTimeout: number;
  maxAborted: number;
  // Run configuration (training/config.ts); only the ones given on the command line are passed on.
  algo?: string;
  schedule?: string;
  seed?: number;
  tasksPerStep?: number;
  groupSize?: number;
  concurrency?: number;
  lr?: number;
  epochs?: number;
  minibatch?: number;
  temperature?: number;
  klCoef?: number;
  entropyCoef?: number;
  checkpointEvery?: number;
  stdNorm?: boolean;
  evalEpisodes?: number;
  evalTemperature?: number;
  evalHorizon?: number;
}

export const defaultRunDir = (): string => `runs/${new Date().toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19)}`;

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
  } as TrainingOptionsConfig;
}

export function registerTrain(program: Command): void {
  const command = addDashboardOptions(program.command('train'))
    .description('train the transformer agent with RL on an env; checkpoints, metrics.jsonl and trajectories go to --out')
    .option('--env <id>', 'environment id', 'babyai')
    .addOption(new Option('--algo <algo>', `algorithm: ${ALGORITHMS.join(' | ')} (default grpo)`))
    .option('--schedule <schedule>', 'horizon schedule: fixed:N, scaling:[h0,h1,…]@STEPS or adaptive:min=A,max=B[,step=S,window=W,trunc=T] (docs/curriculum.md; default scaling:[6,13,20]@100)')
    .option('--steps <n>', 'learner steps of the whole run (a resumed run continues up to this step); required unless --preset gives it', positiveInt('--steps'))
    .option('--preset <name>', `start from a named configuration (${Object.keys(presets).join(', ')}); other options override it`)
    .option('--out <dir>', 'run directory (default runs/<timestamp>, or the resumed run\'s)')
    .option('--resume <dir>', 'continue a run exactly from its checkpoint (a run directory or a checkpoint directory)')
    .option('--init <dir>', 'start a new run from a checkpoint\'s weights (e.g. `sft`\'s), which are also the KL reference; the model and input settings are the checkpoint\'s')
    .option('--max-minutes <m>', 'time budget: end the run (checkpoint, test evaluation) after the step that reaches this many minutes of training, even before --steps', positiveNumber('--max-minutes'))
    .option('--seed <n>', 'run seed (default 0)', nonNegativeInt('--seed'))
    .addOption(new Option('--backend <backend>', 'tfjs backend').choices(BACKEND_PREFERENCES as string[]).default('auto'))
    .addOption(new Option('--learner-threads <n>', 'threads for the learner\'s gradients (default: 2 on wasm with two or more cores, else 1)').choices(['1', '2']))
    .option('--tasks-per-step <n>', 'tasks per learner step (default 16)', positiveInt('--tasks-per-step'))
    .option('--group-size <n>', 'rollouts per task, G (default 4)', positiveInt('--group-size'))
    .option('--concurrency <n>', 'episodes running at once (default 64)', positiveInt('--concurrency'))
    .option('--lr <lr>', 'Adam learning rate (default 1e-3)', positiveNumber('--lr'))
    .option('--epochs <n>', 'passes over each step\'s rollouts (default 1)', positiveInt('--epochs'))
    .option('--minibatch <n>', 'windows per Adam step (default 64)', positiveInt('--minibatch'))
    .option('--temperature <t>', 'rollout sampling temperature (default 1)', positiveNumber('--temperature'))
    .option('--kl-coef <c>', 'k3 KL coefficient to the initial policy (default 1e-3)', nonNegativeNumber('--kl-coef'))
    .option('--entropy-coef <c>', 'entropy bonus (default 1e-3)', nonNegativeNumber('--entropy-coef'))
    .option('--checkpoint-every <k>', 'checkpoint every K steps, 0 = only at the end (default 25)', nonNegativeInt('--checkpoint-every'))
    .option('--no-std-norm', 'GRPO without dividing by the group std (Dr. GRPO)')
    .option('--eval-episodes <n>', 'test episodes evaluated at the end, 0 = none (default: the whole test split)', nonNegativeInt('--eval-episodes'))
    .option('--eval-temperature <t>', 'evaluation temperature, 0 = greedy (default 1)', nonNegativeNumber('--eval-temperature'))
    .option('--eval-horizon <n>', 'evaluation horizon (default: the env default)', positiveInt('--eval-horizon'))
    .option('--token <token>', 'bearer token for --remote (or ACTORGYM_TOKEN)')
    .option('--env-timeout <ms>', 'deadline of each env call, the remote connection\'s start-up calls included', positiveInt('--env-timeout'), 30_000)
    .option('--json', 'print one JSON object with the summary on stdout');
  addModelOptions(command);
  addRemoteOptions(command);
  addMaxAbortedOption(command, 'test episodes of the final evaluation');
  command
    .action(async (options: TrainCliOptions, command: Command) => {
      const token = options.token ?? process.env.ACTORGYM_TOKEN;
      const env = await resolveCommandEnv(options.env, options, token, options.envTimeout);
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
      };
      const summary = await runTraining(trainingOptions, options);
      if (options.json) printJson(summary);
      else printTrainingSummary(summary);
      // Training steps never run short (they pause instead); the test evaluation is a rollout like any other.
      const evaluation = summary.evaluation;
      if (evaluation) {
        const scored = evaluation.outcomes.success + evaluation.outcomes.failure + evaluation.outcomes.truncated;
        const detail = `aborted attempts: ${reasonList(evaluation.abortReasons) || 'none'}`;
        enforceMaxAborted({ unscored: evaluation.slots - scored, total: evaluation.slots, detail }, options.maxAborted, 'test episodes');
      }
      await closeRemote(env);
    });
}

/** Runs a training system with progress on stderr and SIGINT as a graceful stop; shared with `start`. */
export async function runTraining(options: TrainingOptions, dashboardOptions: DashboardCliOptions = {}): Promise<TrainingSummary> {
  const training = createTrainingSystem(options);
  const dashboard = await serveTrainingDashboard(training.events, dashboardOptions);
  const progress = showTrainingProgress(training.events, options.steps);
  const pauses = training.events.subscribe((event) => {
    if (event.type === 'training.paused') process.stderr.write(`step ${event.step}: paused, ${event.slots} slot(s) to collect again; ${event.reason}; waiting for a server\n`);
    if (event.type === 'training.resumed') process.stderr.write(`step ${event.step}: resumed after ${event.pausedSeconds.toFixed(1)} s\n`);
  });
  const interrupt = () => training.stop('interrupted (SIGINT)');
  process.once('SIGINT', interrupt);
  try {
    return await training.run();
  } finally {
    process.off('SIGINT', interrupt);
    progress.unsubscribe();
    pauses.unsubscribe();
    await dashboard.close();
  }
}

export function printTrainingSummary(s: TrainingSummary): void {
  const m = s.lastMetrics;
  console.log(
    `${s.env}, ${s.algo}, ${s.steps} learner steps (${s.status}) on tfjs-${s.backend} in ${s.trainSeconds.toFixed(0)} s\n` +
      table([
        ['last step success', 'last step loss', 'test success', 'test mean reward', 'test mean turns'],
        [
          m ? percent(m.successRate ?? 0) : '-',
          m ? (m.loss ?? 0).toFixed(4) : '-',
          s.testSuccessRate !== undefined ? percent(s.testSuccessRate) : '-',
          s.testMeanReward !== undefined ? s.testMeanReward.toFixed(3) : '-',
          s.testMeanTurns !== undefined ? s.testMeanTurns.toFixed(2) : '-',
        ],
      ]),
  );
  if (s.out) console.log(`\nrun: ${s.out}\ncheckpoint: ${s.checkpoint ?? '-'}\nmetrics: ${s.metricsFile ?? '-'}`);
}
