/**
 * The composition root for training: the learner actor (machines/learner.machine.ts) with its
 * effects — each step's rollouts through the rollout system, the GRPO/PPO/REINFORCE++/RLOO update,
 * weight publishing to the agent, atomic checkpoints — plus the curriculum actor, which owns the
 * horizon (it hears `LEARNER.STEPPED` after each step; a change applies to the next step's
 * episodes), the run directory, and a final evaluation on the test split.
 *
 * @example
 * const training = createTrainingSystem({ env: 'babyai', algo: 'grpo', schedule: 'scaling:[6,13,20]@40', steps: 120, out: 'runs/a' });
 * training.events.pipe(filter((e) => e.type === 'learner.stepped')).subscribe((e) => console.log(e.metrics));
 * const summary = await training.run(); // { steps, testSuccessRate, … }
 */
import { Subject, type Observable } from 'rxjs';
import { getEnv } from '../envs/index.ts';
import type { EnvDefinition } from '../envs/contract.ts';
import type { SymmetryGroups } from '../envs/symmetries.ts';
import { curriculumState } from '../machines/curriculum.machine.ts';
import { parseSchedule, type Schedule } from '../machines/schedule.ts';
import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { FilteredPolicy } from '../policy/observation-filter.ts';
import { TransformerPolicy } from '../policy/transformer-policy.ts';
import type { RolloutSummary } from '../streams/events.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { readCheckpoint } from '../learner/checkpoint/read.ts';
import { writeCheckpoint, type WriteCheckpointOptions } from '../learner/checkpoint/write.ts';
import type { CheckpointData } from '../learner/checkpoint/format.ts';
import { systemClock, type RunClock } from './clock.ts';
import { createCurriculumActor } from './curriculum.actor.ts';
import { createLearnerActor, type LearnerEffects } from './learner.actor.ts';
import { collectStep } from './training/collect.ts';
import type { CollectedStep } from '../learner/collected-step.ts';
import type { DataParallelGrads } from '../learner/data-parallel.ts';
import { trainStep } from '../learner/train-step.ts';
import type { RolloutSystem } from './rollout-system.ts';
import { contextOptions, resolveConfig, resumeConfig, type TrainingConfig, type TrainingOptionsConfig } from '../learner/training-config.ts';
import { evaluate } from './training/evaluate.ts';
import { decisionFields, orderMetrics, rolloutStats } from './training/metrics.ts';
import { freshModels, initModels, loadModels, toCheckpoint, type RunModels } from '../learner/run-models.ts';
import { initConfig } from './training/init-config.ts';
import { checkRunLimits, startLearnerThreads } from './training/learner-threads.ts';
import { RunDir } from './training/run-dir.ts';
import { buildTokenizer } from './training/tokenizer-corpus.ts';

export interface TrainingOptions extends TrainingOptionsConfig {
  readonly env: EnvDefinition | string;
  /** Learner steps of the whole run; a resumed run continues up to this step. */
  readonly steps: number;
  /** Run directory (metrics.jsonl, trajectories/, checkpoint/, config.json); none = nothing written. */
  readonly out?: string;
  /** A checkpoint or run directory to continue from, exactly. */
  readonly resume?: string;
  /**
   * A checkpoint or run directory whose weights start a new run (e.g. after `sft`): its
   * tokenizer, model and input settings are kept, and its weights are also the KL reference.
   */
  readonly init?: string;
  readonly backend?: BackendPreference;
  /**
   * Threads for the learner's gradients, 1 or 2 (learner/data-parallel.ts). Default: 2 on the
   * WebAssembly backend (single-threaded under Node) when the machine has two or more cores,
   * else 1. An exact resume needs the same value, as it needs the same backend.
   */
  readonly learnerThreads?: number;
  readonly maxRetries?: number;
  /** Retries of an episode whose env server was lost, on top of `maxRetries` (rollout system's default 10). */
  readonly maxLostRetries?: number;
  readonly envTimeoutMs?: number;
  readonly clock?: RunClock;
  /**
   * A time budget: after the learner step that brings training time (from the first step's start)
   * to this many minutes, the run ends as done, with its final checkpoint and test evaluation,
   * even if `steps` is not reached. Per invocation, not saved with the run.
   */
  readonly maxMinutes?: number;
  /** Test seam: called at each stage of every checkpoint write (learner/checkpoint/write.ts). */
  readonly onCheckpointStage?: WriteCheckpointOptions['onStage'];
}

export interface TrainingSummary {
  readonly status: 'done' | 'stopped';
  /** Learner steps completed (the step counter at the end). */
  readonly steps: number;
  readonly fromStep: number;
  readonly env: string;
  readonly algo: string;
  readonly backend: string;
  readonly out: string | undefined;
  readonly checkpoint: string | undefined;
  readonly metricsFile: string | undefined;
  readonly lastMetrics: Readonly<Record<string, number>> | undefined;
  readonly trainSeconds: number;
  readonly testSuccessRate: number | undefined;
  readonly testMeanReward: number | undefined;
  readonly testMeanTurns: number | undefined;
  readonly evaluation: Omit<RolloutSummary, 'results'> | undefined;
  /** The run ended on `maxMinutes` before its target step. */
  readonly timeBudgetReached: boolean;
  readonly config: TrainingConfig;
}

export interface TrainingSystem {
  readonly events: Observable<TrainingEvent>;
  run(): Promise<TrainingSummary>;
  /**
   * Stops after the current effect (a running rollout is cancelled and not trained on); during the
   * final test evaluation, stops it (no new episodes; running ones end as aborted).
   */
  stop(reason?: string): void;
}

/** The env's symmetry groups, for `relabel`; an env that declares none is a configuration error. */
function symmetriesOf(env: EnvDefinition): SymmetryGroups {
  const groups = env.spec.symmetries;
  if (groups === undefined || groups.length === 0) throw new Error(`relabel needs an env that declares symmetries (EnvSpec.symmetries); "${env.spec.id}" declares none`);
  return groups;
}

/**
 * A training run as actors: rollouts, learner and curriculum. Throws at once on a bad
 * configuration of a fresh run (unknown algorithm, bad schedule, …); a resumed run's
 * configuration comes from its checkpoint, so `run()` rejects on it instead.
 */
export function createTrainingSystem(options: TrainingOptions): TrainingSystem {
  const clock = options.clock ?? systemClock;
  const events = new Subject<TrainingEvent>();
  const env = typeof options.env === 'string' ? getEnv(options.env) : options.env;
  // What remains after the run-level fields is the run's configuration (learner/training-config.ts).
  const { env: _env, out: _out, resume: _resume, init: _init, backend: _backend, learnerThreads: _threads, maxRetries: _retries, maxLostRetries: _lostRetries, envTimeoutMs: _timeout, clock: _clock, maxMinutes: _budget, onCheckpointStage: _stage, ...configOptions } = options;
  // A fresh run's configuration is checked here, so a bad option fails before a dashboard or a
  // run directory is started; a resumed run's needs the checkpoint, read in run().
  const freshConfig = options.resume === undefined ? resolveConfig(env.spec.id, configOptions) : undefined;
  checkRunLimits(options);
  if (freshConfig?.relabel === true) symmetriesOf(env);
  if (options.init !== undefined && options.resume !== undefined) throw new Error('give --init (a new run from weights) or --resume (continue a run), not both');
  let stopRequested: string | undefined;
  // A stop during the final test evaluation ends it early (no new episodes, running ones aborted).
  const evaluationStop = new AbortController();
  let rollout: RolloutSystem | undefined;
  let learnerStop: ((reason: string) => void) | undefined;

  async function run(): Promise<TrainingSummary> {
    const backend = await selectBackend(options.backend ?? 'auto');
    const resumed = options.resume !== undefined ? await readCheckpoint(options.resume) : undefined;
    const init = options.init !== undefined ? await readCheckpoint(options.init) : undefined;
    const config = resumed
      ? resumeConfig(resumed.data.state.config as unknown as TrainingConfig, env.spec.id, configOptions)
      : init
        ? initConfig(init.data.state.config, env.spec.id, configOptions, init.dir)
        : (freshConfig as TrainingConfig);
    if (config.relabel === true) symmetriesOf(env);
    // A resumed run continues in its run directory, also when a crash left only checkpoint.old.
    const out = options.out ?? (resumed ? RunDir.ofCheckpoint(resumed.dir) : undefined);
    const runDir = out !== undefined ? new RunDir(out) : undefined;
    const models = resumed
      ? await loadModels(resumed.data, config, resumed.dir)
      : init
        ? initModels(init.data, config, init.dir)
        : freshModels(await buildTokenizer(env, { seed: config.seed, tasks: config.corpusTasks, maxVocab: config.maxVocab }), config);
    let parallel: DataParallelGrads | undefined;
    try {
      parallel = await startLearnerThreads(backend, models, options.learnerThreads);
      return await train(config, backend, models, runDir, resumed?.data, parallel);
    } finally {
      await parallel?.close();
      models.dispose();
    }
  }

  async function train(
    config: TrainingConfig, backend: string, models: RunModels, runDir: RunDir | undefined, resumed: CheckpointData | undefined, parallel: DataParallelGrads | undefined,
  ): Promise<TrainingSummary> {
    const schedule = (parseSchedule(config.schedule) as { ok: true; value: Schedule }).value;
    const fromStep = resumed?.state.step ?? 0;
    const agent = new TransformerPolicy(models.agentModel, models.tokenizer, { temperature: config.temperature, ...contextOptions(config) });
    const policy = new FilteredPolicy(agent, config.observation, {
      record: true,
      hide: config.hiddenActions,
      ...(config.relabel === true ? { relabel: symmetriesOf(env) } : {}),
    });
    if (resumed) agent.setWeights(resumed.state.policyVersion, models.model.getWeights());
    const curriculum = createCurriculumActor({ schedule, completedSteps: fromStep, ...(resumed ? { state: resumed.state.curriculum } : {}) });
    // Held back until the step's learner.stepped is out, so the stream reads step → decision → change.
    const curriculumEvents: TrainingEvent[] = [];
    curriculum.on('curriculum.decided', (decided) => curriculumEvents.push({ ...decided, t: clock.now() }));
    curriculum.on('horizon.changed', (change) => curriculumEvents.push({ ...change, t: clock.now() }));
    runDir?.init({ ...config, backend }, fromStep);
    events.next({
      type: 'training.started', t: clock.now(), env: env.spec.id, algo: config.algo, backend, learnerThreads: parallel ? 2 : 1, fromStep, targetSteps: config.steps,
      out: runDir?.root ?? '', parameters: models.model.parameterCount, vocabSize: models.tokenizer.vocabSize,
    });

    let pending: CollectedStep | undefined;
    // Aborted when the run stops, so a step paused for its env servers stops waiting.
    const halt = new AbortController();
    const checkpoint = async (step: number, policyVersion: number): Promise<string> => {
      if (!runDir) return '';
      const data = await toCheckpoint(models, {
        step, policyVersion,
        curriculum: curriculumState(curriculum.getSnapshot().context),
        rng: { seed: config.seed, derivedFrom: 'seed and step' },
        config: config as unknown as Record<string, unknown>,
      });
      return writeCheckpoint(runDir.checkpointDir, data, options.onCheckpointStage ? { onStage: options.onCheckpointStage } : {});
    };
    const effects: LearnerEffects = {
      collect: async ({ step }) => {
        pending = await collectStep({
          env, policy, step, horizon: curriculum.getSnapshot().context.horizon, seed: config.seed,
          tasksPerStep: config.tasksPerStep, groupSize: config.groupSize, concurrency: config.concurrency,
          ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
          ...(options.maxLostRetries !== undefined ? { maxLostRetries: options.maxLostRetries } : {}),
          ...(options.envTimeoutMs !== undefined ? { envTimeoutMs: options.envTimeoutMs } : {}),
          // A step whose slots were aborted waits for its env servers (training.paused) instead of training short.
          signal: halt.signal, clock,
          events: { next: (e) => events.next(e) },
          onSystem: (system) => { rollout = system; },
        });
        runDir?.writeTrajectories(step, pending.episodes.map((e) => e.output));
        return rolloutStats(pending);
      },
      train: async ({ step, rollout: stats }) => {
        const collected = pending;
        pending = undefined;
        if (!collected) throw new Error(`no rollouts collected for step ${step}`);
        const started = performance.now();
        const metrics = await trainStep({
          model: models.model, reference: models.reference, optimizer: models.optimizer, args: config,
          episodes: collected.episodes, seed: config.seed, step, dropUninformative: config.dropUninformative,
          decoding: agent.actionDecoding,
          ...(parallel ? { parallel } : {}),
        });
        return { ...stats, ...metrics, learnSeconds: (performance.now() - started) / 1000 };
      },
      publish: async ({ version }) => agent.setWeights(version, models.model.getWeights()),
      checkpoint: ({ step, policyVersion }) => checkpoint(step, policyVersion),
    };

    const learner = createLearnerActor(effects, {
      completedSteps: fromStep,
      targetSteps: config.steps,
      policyVersion: resumed?.state.policyVersion ?? 0,
      checkpointEvery: runDir ? config.checkpointEvery : 0,
    });
    learner.on('learner.stepped', (e) => {
      const metrics = orderMetrics(e.metrics);
      curriculum.send({ type: 'LEARNER.STEPPED', step: e.step, metrics });
      runDir?.appendMetrics({ ...metrics, ...decisionFields(curriculum.getSnapshot().context.lastDecision) });
      events.next({ type: 'learner.stepped', t: clock.now(), step: e.step, policyVersion: e.policyVersion, metrics });
      for (const event of curriculumEvents.splice(0)) events.next(event);
      const budget = options.maxMinutes;
      if (budget !== undefined && !budgetReached && e.step < config.steps && performance.now() - trainStarted >= budget * 60_000) {
        budgetReached = true;
        learnerStop?.(`time budget of ${budget} min`);
      }
    });
    let budgetReached = false;
    const trainStarted = performance.now();
    learner.on('checkpoint.saved', (e) => events.next({ type: 'checkpoint.saved', t: clock.now(), step: e.step, path: e.path }));
    const final = await new Promise<ReturnType<typeof learner.getSnapshot>>((resolve) => {
      learner.subscribe({ complete: () => resolve(learner.getSnapshot()), error: () => resolve(learner.getSnapshot()) });
      learnerStop = (reason) => {
        halt.abort(new Error(reason));
        learner.send({ type: 'STOP', reason });
        rollout?.stop(reason);
      };
      learner.start();
      if (stopRequested !== undefined) learnerStop(stopRequested);
      learner.send({ type: 'START' });
    });
    learnerStop = undefined;
    const trainSeconds = (performance.now() - trainStarted) / 1000;
    const ctx = final.context;
    curriculum.stop();
    policy.clearRecords();
    agent.dispose();
    if (final.value === 'failed' || final.status === 'error') {
      events.next({ type: 'training.finished', t: clock.now(), steps: ctx.step, status: 'failed' });
      events.complete();
      throw new Error(`training failed at step ${ctx.step + 1}: ${ctx.error ?? String(final.error)}`);
    }
    let checkpointPath = runDir && ctx.lastCheckpointStep === ctx.step && ctx.step > fromStep ? runDir.checkpointDir : undefined;
    if (runDir && ctx.step > ctx.lastCheckpointStep) {
      checkpointPath = await checkpoint(ctx.step, ctx.policyVersion);
      events.next({ type: 'checkpoint.saved', t: clock.now(), step: ctx.step, path: checkpointPath });
    }
    const status = final.value === 'done' || budgetReached ? 'done' : 'stopped';
    events.next({ type: 'training.finished', t: clock.now(), steps: ctx.step, status, ...(budgetReached ? { reason: `time budget of ${options.maxMinutes} min` } : {}) });
    let evaluation: RolloutSummary | undefined;
    if (status === 'done' && config.evalEpisodes !== 0) {
      evaluation = await evaluate({
        env, model: models.model, tokenizer: models.tokenizer, observation: config.observation, hiddenActions: config.hiddenActions, context: contextOptions(config), split: 'test',
        ...(config.evalEpisodes !== 'all' ? { episodes: config.evalEpisodes } : {}),
        horizon: config.evalHorizon === 'default' ? env.spec.defaultHorizon : config.evalHorizon,
        temperature: config.evalTemperature, seed: config.seed, concurrency: config.concurrency,
        name: `${config.algo}@${ctx.step}`, events: { next: (e) => events.next(e) }, signal: evaluationStop.signal,
      });
      events.next({ type: 'evaluation.finished', t: clock.now(), summary: evaluation });
    }
    events.complete();
    const { results: _results, ...evalSummary } = evaluation ?? { results: [] };
    return {
      status, steps: ctx.step, fromStep, env: env.spec.id, algo: config.algo, backend,
      out: runDir?.root, checkpoint: checkpointPath ?? (runDir && ctx.step > 0 ? runDir.checkpointDir : undefined),
      metricsFile: runDir?.metricsFile, lastMetrics: ctx.lastMetrics ? orderMetrics({ ...ctx.lastMetrics, step: ctx.step }) : undefined,
      trainSeconds,
      testSuccessRate: evaluation?.successRate, testMeanReward: evaluation?.meanReward, testMeanTurns: evaluation?.meanTurns,
      evaluation: evaluation ? (evalSummary as Omit<RolloutSummary, 'results'>) : undefined,
      timeBudgetReached: budgetReached,
      config,
    };
  }

  let started: Promise<TrainingSummary> | undefined;
  return {
    events: events.asObservable(),
    run: () => (started ??= run()),
    stop: (reason = 'stopped by the caller') => {
      stopRequested = reason;
      evaluationStop.abort(new Error(reason));
      learnerStop?.(reason);
    },
  };
}
