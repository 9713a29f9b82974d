/**
 * Supervised fine-tuning (behaviour cloning) of the transformer policy on demonstrations
 * (`actorgym collect`, or AgentTraj files): the composition root of `actorgym sft`.
 *
 * One code path with RL: the run configuration, tokenizer, model and checkpoint are training's
 * (learner/training-config.ts, learner/run-models.ts, learner/checkpoint/); demos become rows through the policy's own
 * context layout (sft/demo-rows.ts); the loss runs through the learner's update with the
 * cross-entropy objective (sft/sft-epoch.ts). An epoch is a "step": metrics.jsonl gets one line
 * per epoch (train loss, validation loss, and test success every `evalEvery` epochs), the
 * checkpoint is written after every epoch, and `--resume` continues at the next epoch exactly
 * (the shuffle is derived from seed and epoch). The checkpoint loads anywhere a training
 * checkpoint does (`eval --checkpoint`, `train --init`).
 *
 * @example
 * const sft = createSftSystem({ env: 'babyai', demos: ['demos/babyai.jsonl'], epochs: 10, out: 'runs/sft' });
 * sft.events.subscribe((e) => e.type === 'learner.stepped' && console.log(e.metrics.valLoss));
 * const summary = await sft.run();
 */
import { createHash } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import type { EnvDefinition } from '../envs/contract.ts';
import { getEnv } from '../envs/index.ts';
import { parseSchedule, type Schedule } from '../machines/schedule.ts';
import { selectBackend, type BackendPreference } from '../policy/backend.ts';
import { FilteredPolicy } from '../policy/observation-filter.ts';
import { TransformerPolicy } from '../policy/transformer-policy.ts';
import type { RolloutSummary } from '../streams/events.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { CheckpointError } from '../learner/checkpoint/format.ts';
import { readCheckpoint } from '../learner/checkpoint/read.ts';
import { writeCheckpoint } from '../learner/checkpoint/write.ts';
import { systemClock, type RunClock } from './clock.ts';
import { createCurriculumActor } from './curriculum.actor.ts';
import { curriculumState } from '../machines/curriculum.machine.ts';
import type { Demo } from '../demos/demo.ts';
import { readDemos } from '../demos/read-demos.ts';
import { AllowedTokensBuilder } from '../learner/allowed-tokens.ts';
import type { LearnerArgs } from '../learner/args.ts';
import type { DataParallelGrads } from '../learner/data-parallel.ts';
import { demoRows, type DemoRows } from '../learner/sft/demo-rows.ts';
import { sftEpoch, validationLoss } from '../learner/sft/sft-epoch.ts';
import { checkSftSettings, sftDefaults, type SftSettings } from './sft/sft-settings.ts';
import { validationTasks } from '../learner/sft/validation-split.ts';
import { contextOptions, resolveConfig, type TrainingConfig, type TrainingOptionsConfig } from '../learner/training-config.ts';
import { evaluate } from './training/evaluate.ts';
import { checkRunLimits, startLearnerThreads } from './training/learner-threads.ts';
import { freshModels, loadModels, toCheckpoint, type RunModels } from '../learner/run-models.ts';
import { RunDir } from './training/run-dir.ts';
import { buildTokenizer } from './training/tokenizer-corpus.ts';

export interface SftOptions extends Omit<TrainingOptionsConfig, 'steps' | 'epochs' | 'lr' | 'minibatch' | 'evalEpisodes'> {
  readonly env: EnvDefinition | string;
  /** Demo files (ours or AgentTraj, demos); several are concatenated. */
  readonly demos: readonly string[];
  readonly epochs?: number;
  readonly lr?: number;
  readonly minibatch?: number;
  readonly validationShare?: number;
  readonly evalEvery?: number;
  readonly evalEpisodes?: number | 'all';
  /** Keep only successful demos (default true: cloning failures teaches failing). */
  readonly onlySuccess?: boolean;
  readonly out?: string;
  /** An SFT run or checkpoint directory to continue from, at its next epoch. */
  readonly resume?: string;
  readonly backend?: BackendPreference;
  readonly learnerThreads?: number;
  /** Stop (with a checkpoint and a test evaluation) after the epoch that passes this many minutes. */
  readonly maxMinutes?: number;
  readonly clock?: RunClock;
}

export interface SftSummary {
  readonly status: 'done' | 'stopped';
  readonly env: string;
  readonly epochs: number;
  readonly fromEpoch: number;
  readonly backend: string;
  readonly out: string | undefined;
  readonly checkpoint: string | undefined;
  readonly metricsFile: string | undefined;
  readonly demos: { readonly read: number; readonly trained: number; readonly validation: number; readonly skipped: number; readonly truncatedTurns: number; readonly rows: number; readonly agentTokens: number };
  readonly trainLoss: number | undefined;
  readonly valLoss: number | undefined;
  readonly trainSeconds: number;
  readonly testSuccessRate: number | undefined;
  readonly testMeanReward: number | undefined;
  readonly evaluation: Omit<RolloutSummary, 'results'> | undefined;
  readonly config: TrainingConfig;
  readonly sft: SftSettings;
}

export interface SftSystem {
  readonly events: Observable<TrainingEvent>;
  run(): Promise<SftSummary>;
  /** Stops at the next update; the last finished epoch's checkpoint is what remains. */
  stop(reason?: string): void;
}

/** A digest of the demos as read, in order: a resumed run must clone the same demos. */
const digestOf = (demos: readonly Demo[]): string => createHash('sha256').update(JSON.stringify(demos)).digest('hex');

/** What a resumed run must keep of the SFT settings: all but the epoch target and the files' paths (the digest compares the demos). */
const resumeKey = ({ epochs: _epochs, demos: _demos, ...rest }: SftSettings): string => JSON.stringify(rest);

export function createSftSystem(options: SftOptions): SftSystem {
  const clock = options.clock ?? systemClock;
  const events = new Subject<TrainingEvent>();
  const env = typeof options.env === 'string' ? getEnv(options.env) : options.env;
  const { env: _e, demos: _d, epochs: _ep, lr: _lr, minibatch: _mb, validationShare: _vs, evalEvery: _ee, evalEpisodes: _ev, onlySuccess: _os,
    out: _o, resume: _r, backend: _b, learnerThreads: _t, maxMinutes: _m, clock: _c, ...modelOptions } = options;
  const settingsWithoutDigest = {
    epochs: options.epochs ?? sftDefaults.epochs,
    lr: options.lr ?? sftDefaults.lr,
    minibatch: options.minibatch ?? sftDefaults.minibatch,
    validationShare: options.validationShare ?? sftDefaults.validationShare,
    evalEvery: options.evalEvery ?? sftDefaults.evalEvery,
    evalEpisodes: options.evalEpisodes ?? sftDefaults.evalEpisodes,
    demos: options.demos,
  };
  checkSftSettings({ ...settingsWithoutDigest, demosSha256: '' });
  // The model, context and tokenizer settings, as a training run would resolve them.
  const freshConfig = resolveConfig(env.spec.id, {
    ...modelOptions, steps: settingsWithoutDigest.epochs, lr: settingsWithoutDigest.lr, minibatch: settingsWithoutDigest.minibatch,
    ...(settingsWithoutDigest.evalEpisodes !== 'all' ? { evalEpisodes: settingsWithoutDigest.evalEpisodes } : {}),
  });
  checkRunLimits(options);
  let stopReason: string | undefined;

  async function run(): Promise<SftSummary> {
    const backend = await selectBackend(options.backend ?? 'auto');
    const demos = await loadDemos(options.demos, env, options.onlySuccess ?? true);
    const settings: SftSettings = { ...settingsWithoutDigest, demosSha256: digestOf(demos.all) };
    const resumed = options.resume !== undefined ? await readCheckpoint(options.resume) : undefined;
    let config = freshConfig;
    if (resumed) {
      const saved = resumed.data.state.config as unknown as TrainingConfig & { sft?: SftSettings };
      if (saved.sft === undefined) throw new CheckpointError('CKPT_INCOMPATIBLE', `${resumed.dir} is not an SFT checkpoint (resume RL runs with \`train --resume\`)`);
      if (saved.env !== env.spec.id) throw new CheckpointError('CKPT_INCOMPATIBLE', `the checkpoint cloned env "${saved.env}", not "${env.spec.id}"`);
      if (saved.sft.demosSha256 !== settings.demosSha256) throw new CheckpointError('CKPT_INCOMPATIBLE', 'the demos differ from the ones the checkpoint was trained on (sha256 of the demos read)');
      if (resumeKey(saved.sft) !== resumeKey(settings)) throw new CheckpointError('CKPT_INCOMPATIBLE', `SFT settings differ from the checkpoint's: ${resumeKey(settings)} vs ${resumeKey(saved.sft)} (only --epochs may change)`);
      const { sft: _s, ...savedConfig } = saved;
      config = { ...savedConfig, steps: settings.epochs };
    }
    const runDir = (options.out ?? (resumed ? RunDir.ofCheckpoint(resumed.dir) : undefined));
    const dir = runDir !== undefined ? new RunDir(runDir) : undefined;
    const models = resumed
      ? await loadModels(resumed.data, config, resumed.dir)
      : freshModels(await buildTokenizer(env, { seed: config.seed, tasks: config.corpusTasks, maxVocab: config.maxVocab }), config);
    let parallel: DataParallelGrads | undefined;
    try {
      parallel = await startLearnerThreads(backend, models, options.learnerThreads);
      return await train(config, settings, backend, models, dir, demos, resumed?.data.state.step ?? 0, parallel);
    } finally {
      await parallel?.close();
      models.dispose();
    }
  }

  async function train(
    config: TrainingConfig, settings: SftSettings, backend: string, models: RunModels, dir: RunDir | undefined,
    demos: { all: readonly Demo[]; kept: readonly Demo[] }, fromEpoch: number, parallel: DataParallelGrads | undefined,
  ): Promise<SftSummary> {
    const inner = new TransformerPolicy(models.model, models.tokenizer, { temperature: config.temperature, ...contextOptions(config) });
    const policy = new FilteredPolicy(inner, config.observation, { record: true, hide: config.hiddenActions });
    const held = validationTasks(demos.kept.map((d) => d.taskId), settings.validationShare, config.seed);
    const allowed = new AllowedTokensBuilder(inner.actionDecoding);
    const trainDemos = demos.kept.filter((d) => !held.has(d.taskId));
    const valDemos = demos.kept.filter((d) => held.has(d.taskId));
    const trainRows = demoRows(trainDemos, policy, allowed);
    const valRows = demoRows(valDemos, policy, allowed);
    if (trainRows.rows.length === 0) {
      const why = trainRows.skipped[0]?.reason ?? 'no demos left after filtering';
      throw new Error(`no demo could be turned into training rows (${trainDemos.length} demos; first problem: ${why})`);
    }
    const args: LearnerArgs = { ...config, lr: settings.lr, minibatch: settings.minibatch, objective: 'cross-entropy' };
    const schedule = (parseSchedule(config.schedule) as { ok: true; value: Schedule }).value;
    const curriculum = createCurriculumActor({ schedule, completedSteps: 0 });
    const curriculumSnapshot = curriculumState(curriculum.getSnapshot().context);
    curriculum.stop();
    const savedConfig = { ...config, sft: settings } as unknown as Record<string, unknown>;
    dir?.init({ ...savedConfig, backend }, fromEpoch);
    events.next({
      type: 'training.started', t: clock.now(), env: env.spec.id, algo: 'sft', backend, learnerThreads: parallel ? 2 : 1, fromStep: fromEpoch,
      targetSteps: settings.epochs, out: dir?.root ?? '', parameters: models.model.parameterCount, vocabSize: models.tokenizer.vocabSize,
    });
    const started = performance.now();
    let epoch = fromEpoch;
    let last: Record<string, number> | undefined;
    let checkpointPath: string | undefined;
    let budgetReached = false;
    let lastEval: RolloutSummary | undefined;
    const evalAt = async (at: number): Promise<RolloutSummary | undefined> => {
      if (settings.evalEpisodes === 0) return undefined;
      const summary = await evaluate({
        env, model: models.model, tokenizer: models.tokenizer, observation: config.observation, hiddenActions: config.hiddenActions,
        context: contextOptions(config), split: 'test', ...(settings.evalEpisodes !== 'all' ? { episodes: settings.evalEpisodes } : {}),
        horizon: config.evalHorizon === 'default' ? env.spec.defaultHorizon : config.evalHorizon,
        temperature: config.evalTemperature, seed: config.seed, concurrency: config.concurrency, name: `sft@${at}`,
      });
      events.next({ type: 'evaluation.finished', t: clock.now(), summary });
      return summary;
    };
    while (epoch < settings.epochs && stopReason === undefined) {
      const t0 = performance.now();
      const { metrics, complete } = await sftEpoch({
        model: models.model, optimizer: models.optimizer, args, rows: trainRows.rows, seed: config.seed, epoch: epoch + 1,
        ...(parallel ? { parallel } : {}), stopped: () => stopReason !== undefined,
      });
      // A cut epoch is not saved: the checkpoint stays at the last whole epoch, so a resume is exact.
      if (!complete) break;
      epoch += 1;
      const valLoss = await validationLoss(models.model, valRows.rows, args, parallel);
      const due = epoch === settings.epochs || (settings.evalEvery > 0 && epoch % settings.evalEvery === 0);
      const budget = options.maxMinutes !== undefined && performance.now() - started >= options.maxMinutes * 60_000;
      if (budget) budgetReached = true;
      lastEval = due || budget ? await evalAt(epoch) : undefined;
      last = {
        step: epoch, loss: metrics.loss!, valLoss, entropy: metrics.entropy!, gradNorm: metrics.gradNorm!, updates: metrics.updates!,
        skippedUpdates: metrics.skippedUpdates!, trainedTokens: metrics.trainedTokens!, epochSeconds: (performance.now() - t0) / 1000,
        seconds: (performance.now() - started) / 1000,
        ...(lastEval ? { testSuccessRate: lastEval.successRate, testMeanReward: lastEval.meanReward, testMeanTurns: lastEval.meanTurns } : {}),
      };
      dir?.appendMetrics(last);
      events.next({ type: 'learner.stepped', t: clock.now(), step: epoch, policyVersion: epoch, metrics: last });
      if (dir) {
        const data = await toCheckpoint(models, { step: epoch, policyVersion: epoch, curriculum: curriculumSnapshot, rng: { seed: config.seed, derivedFrom: 'seed and step' }, config: savedConfig });
        checkpointPath = await writeCheckpoint(dir.checkpointDir, data);
        events.next({ type: 'checkpoint.saved', t: clock.now(), step: epoch, path: checkpointPath });
      }
      if (budget) break;
    }
    const done = epoch >= settings.epochs || budgetReached;
    events.next({ type: 'training.finished', t: clock.now(), steps: epoch, status: done ? 'done' : 'stopped', ...(budgetReached ? { reason: `time budget of ${options.maxMinutes} min` } : stopReason ? { reason: stopReason } : {}) });
    events.complete();
    inner.dispose();
    const { results: _results, ...evaluation } = lastEval ?? { results: [] };
    return {
      status: done ? 'done' : 'stopped', env: env.spec.id, epochs: epoch, fromEpoch, backend,
      out: dir?.root, checkpoint: checkpointPath ?? (dir && epoch > 0 ? dir.checkpointDir : undefined), metricsFile: dir?.metricsFile,
      demos: summaryOf(demos, trainRows, valRows),
      trainLoss: last?.loss, valLoss: last?.valLoss !== undefined && Number.isFinite(last.valLoss) ? last.valLoss : undefined,
      trainSeconds: (performance.now() - started) / 1000,
      testSuccessRate: lastEval?.successRate, testMeanReward: lastEval?.meanReward,
      evaluation: lastEval ? (evaluation as Omit<RolloutSummary, 'results'>) : undefined,
      config, sft: settings,
    };
  }

  let started: Promise<SftSummary> | undefined;
  return {
    events: events.asObservable(),
    run: () => (started ??= run()),
    stop: (reason = 'stopped by the caller') => {
      stopReason ??= reason;
    },
  };
}

async function loadDemos(files: readonly string[], env: EnvDefinition, onlySuccess: boolean): Promise<{ all: readonly Demo[]; kept: readonly Demo[] }> {
  const all: Demo[] = [];
  for (const file of files) {
    const demos = await readDemos(file, { env });
    const foreign = demos.find((d) => d.env !== env.spec.id);
    if (foreign !== undefined) throw new Error(`${file}: holds demos of env "${foreign.env}", not "${env.spec.id}"`);
    all.push(...demos);
  }
  const kept = onlySuccess ? all.filter((d: Demo) => d.outcome === 'success') : all;
  if (kept.length === 0) throw new Error(`no ${onlySuccess ? 'successful ' : ''}demos in ${files.join(', ')} (${all.length} read)`);
  return { all, kept };
}

function summaryOf(demos: { all: readonly Demo[]; kept: readonly Demo[] }, train: DemoRows, val: DemoRows): SftSummary['demos'] {
  return {
    read: demos.all.length, trained: train.used, validation: val.used, skipped: train.skipped.length + val.skipped.length,
    truncatedTurns: train.truncatedTurns + val.truncatedTurns, rows: train.rows.length, agentTokens: train.agentTokens,
  };
}
