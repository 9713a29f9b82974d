/**
 * A training run's configuration: the options a caller gives (`TrainingOptions`), resolved with
 * defaults and validated into the JSON `TrainingConfig` that config.json and every checkpoint
 * hold. On resume the checkpoint's config wins; only the fields in `RESUMABLE` may differ
 * (they change neither the maths nor the random draws), anything else is an error.
 */
import { parseAlgorithm, type Algorithm } from '../algorithms/algorithm-names.ts';
import { formatSchedule, parseSchedule, type Schedule } from '../machines/schedule.ts';
import type { ObservationFilter } from '../policy/observation-filter.ts';
import { parseObservationFilter } from '../policy/observation-filter.ts';
import { parseActionWords, type ActionWordOrder } from '../policy/action-words.ts';
import { learnerDefaults } from './args.ts';
import { errorMessage } from '../envs/error-message.ts';
import { CheckpointError } from './checkpoint/format.ts';
import { resolveHfSettings, type HfRunOptions } from './hf-settings.ts';
import { resolveAsync, type AsyncSettings } from './async-settings.ts';
import { parseSavedConfig, type TrainingConfig } from './training-config-schema.ts';

// The config's one schema, with the type inferred from it and the reader of a saved one (config-schema.ts).
export { parseSaved, parseSavedConfig, TrainingConfigSchema, type ModelOverrides, type TrainingConfig } from './training-config-schema.ts';

export type TrainingOptionsConfig = Partial<Omit<TrainingConfig, 'env' | 'algo' | 'schedule' | 'hf' | 'async'>> & {
  readonly algo?: string;
  readonly schedule?: string | Schedule;
  /** Train a Hugging Face causal LM (learner/hf-settings.ts); its unset fields take `hfDefaults`. */
  readonly hf?: HfRunOptions;
  /** Asynchronous training (learner/async-settings.ts); unset fields take `asyncDefaults`. Absent: synchronous. */
  readonly async?: Partial<AsyncSettings>;
};

/** Fields a resumed run may change. */
export const RESUMABLE = ['steps', 'concurrency', 'checkpointEvery', 'evalEpisodes', 'evalTemperature', 'evalHorizon'] as const;

/** Adam's learning rate for a Hugging Face model when none is given: LoRA on a pretrained model. */
export const HF_DEFAULT_LR = 1e-4;

export const trainingDefaults = {
  algo: 'grpo' as Algorithm,
  schedule: 'scaling:[6,13,20]@100',
  tasksPerStep: 16,
  groupSize: 4,
  seed: 0,
  observation: 'no-action-list' as ObservationFilter,
  dropUninformative: true,
  relabel: false,
  hiddenActions: [] as readonly string[],
  historyTurns: 'all' as const,
  historyActionsOnly: false,
  instructionTokens: 'auto' as const,
  actionWords: 'as-written' as ActionWordOrder,
  maxVocab: 512,
  corpusTasks: 72,
  concurrency: 64,
  checkpointEvery: 25,
  evalEpisodes: 'all' as const,
  evalTemperature: 1,
  evalHorizon: 'default' as const,
};

function positiveInt(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 1)) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) throw new Error(`${name} must be a number ≥ 0, got ${value}`);
  return value;
}

function allOr<K extends string>(name: string, value: number | K, word: K, min: number): number | K {
  if (value === word) return value;
  if (!(Number.isInteger(value) && (value as number) >= min)) throw new Error(`${name} must be "${word}" or an integer ≥ ${min}, got ${String(value)}`);
  return value;
}

function actionList(name: string, value: unknown): readonly string[] {
  if (!(Array.isArray(value) && value.every((a) => typeof a === 'string' && a.trim() !== ''))) {
    throw new Error(`${name} must be a list of non-empty action strings, got ${JSON.stringify(value)}`);
  }
  return value as readonly string[];
}

/** A saved config's hidden actions (none in checkpoints older than the field); CKPT_CORRUPT when malformed. */
export function savedHiddenActions(config: Partial<Pick<TrainingConfig, 'hiddenActions'>>, file: string): readonly string[] {
  try {
    return actionList('hiddenActions', config.hiddenActions ?? []);
  } catch (error) {
    throw new CheckpointError('CKPT_CORRUPT', `${file}: ${errorMessage(error)}`);
  }
}

/** The context options of a TransformerPolicy for a run's config (old checkpoints lack them). */
export function contextOptions(config: Partial<Pick<TrainingConfig, 'historyTurns' | 'historyActionsOnly' | 'instructionTokens' | 'actionWords'>>): {
  historyTurns?: number;
  historyActionsOnly?: boolean;
  instructionTokens?: number;
  actionWords?: ActionWordOrder;
} {
  return {
    ...(config.actionWords === 'reversed' ? { actionWords: 'reversed' as const } : {}),
    ...(typeof config.historyTurns === 'number' ? { historyTurns: config.historyTurns } : {}),
    ...(config.historyActionsOnly === true ? { historyActionsOnly: true } : {}),
    ...(typeof config.instructionTokens === 'number' ? { instructionTokens: config.instructionTokens } : {}),
  };
}

export function resolveConfig(env: string, options: TrainingOptionsConfig & { readonly steps: number }): TrainingConfig {
  const schedule = typeof options.schedule === 'object' ? formatSchedule(options.schedule) : (options.schedule ?? trainingDefaults.schedule);
  const parsed = parseSchedule(schedule);
  if (!parsed.ok) throw new Error(parsed.error);
  const algo = parseAlgorithm(options.algo ?? trainingDefaults.algo);
  const config: TrainingConfig = {
    env,
    algo,
    schedule: formatSchedule(parsed.value),
    steps: positiveInt('steps', options.steps),
    tasksPerStep: positiveInt('tasksPerStep', options.tasksPerStep ?? trainingDefaults.tasksPerStep),
    groupSize: positiveInt('groupSize', options.groupSize ?? trainingDefaults.groupSize),
    seed: nonNegative('seed', options.seed ?? trainingDefaults.seed),
    model: options.model ?? {},
    lr: options.lr ?? (options.hf ? HF_DEFAULT_LR : learnerDefaults.lr),
    epochs: positiveInt('epochs', options.epochs ?? learnerDefaults.epochs),
    minibatch: positiveInt('minibatch', options.minibatch ?? learnerDefaults.minibatch),
    clipRatio: nonNegative('clipRatio', options.clipRatio ?? learnerDefaults.clipRatio),
    klCoef: nonNegative('klCoef', options.klCoef ?? learnerDefaults.klCoef),
    entropyCoef: nonNegative('entropyCoef', options.entropyCoef ?? learnerDefaults.entropyCoef),
    valueCoef: nonNegative('valueCoef', options.valueCoef ?? learnerDefaults.valueCoef),
    maxGradNorm: nonNegative('maxGradNorm', options.maxGradNorm ?? learnerDefaults.maxGradNorm),
    temperature: nonNegative('temperature', options.temperature ?? learnerDefaults.temperature),
    // An LLM's reply is free text: there is no constrained distribution to score.
    constrainedLoss: options.hf ? false : (options.constrainedLoss ?? learnerDefaults.constrainedLoss),
    stdNorm: options.stdNorm ?? learnerDefaults.stdNorm,
    observation: parseObservationFilter(options.observation ?? trainingDefaults.observation),
    dropUninformative: options.dropUninformative ?? trainingDefaults.dropUninformative,
    relabel: options.relabel ?? trainingDefaults.relabel,
    hiddenActions: actionList('hiddenActions', options.hiddenActions ?? trainingDefaults.hiddenActions),
    historyTurns: allOr('historyTurns', options.historyTurns ?? trainingDefaults.historyTurns, 'all', 0),
    historyActionsOnly: options.historyActionsOnly ?? trainingDefaults.historyActionsOnly,
    instructionTokens: allOr('instructionTokens', options.instructionTokens ?? trainingDefaults.instructionTokens, 'auto', 1),
    actionWords: parseActionWords(options.actionWords ?? trainingDefaults.actionWords),
    maxVocab: positiveInt('maxVocab', options.maxVocab ?? trainingDefaults.maxVocab),
    corpusTasks: positiveInt('corpusTasks', options.corpusTasks ?? trainingDefaults.corpusTasks),
    concurrency: positiveInt('concurrency', options.concurrency ?? trainingDefaults.concurrency),
    checkpointEvery: nonNegative('checkpointEvery', options.checkpointEvery ?? trainingDefaults.checkpointEvery),
    evalEpisodes: options.evalEpisodes ?? trainingDefaults.evalEpisodes,
    evalTemperature: nonNegative('evalTemperature', options.evalTemperature ?? trainingDefaults.evalTemperature),
    evalHorizon: options.evalHorizon ?? trainingDefaults.evalHorizon,
    ...(options.hf ? { hf: resolveHfSettings(options.hf) } : {}),
    ...(options.async ? { async: resolveAsync(options.async) } : {}),
  };
  if (options.hf && options.constrainedLoss === true) throw new Error('constrainedLoss needs our transformer: a Hugging Face model is scored over its whole vocabulary');
  if (config.historyActionsOnly && config.historyTurns === 'all') {
    throw new Error('historyActionsOnly needs a number of history turns (historyTurns), not "all"');
  }
  if (config.model.copyWordForms === true && config.model.instructionCopy !== true) {
    throw new Error('copyWordForms needs instructionCopy (--instruction-copy)');
  }
  if (!(config.lr > 0)) throw new Error(`lr must be > 0, got ${config.lr}`);
  if (!(config.temperature > 0)) throw new Error('training temperature must be > 0 (the learner scores with it)');
  if ((algo === 'grpo' || algo === 'rloo') && config.groupSize < 2) {
    throw new Error(`${algo} needs at least 2 rollouts per task (groupSize ≥ 2), got ${config.groupSize}`);
  }
  return config;
}

function canonicalSchedule(schedule: string | Schedule): string {
  if (typeof schedule === 'object') return formatSchedule(schedule);
  const parsed = parseSchedule(schedule);
  return parsed.ok ? formatSchedule(parsed.value) : schedule;
}

/**
 * The checkpoint's config with the caller's allowed overrides; any other field the caller set to
 * a different value is a CKPT_INCOMPATIBLE error naming it.
 */
export function resumeConfig(saved: TrainingConfig, env: string, options: TrainingOptionsConfig & { readonly steps: number }): TrainingConfig {
  if (saved.env !== env) throw new CheckpointError('CKPT_INCOMPATIBLE', `the checkpoint trained env "${saved.env}", not "${env}"`);
  const given = Object.entries(options).filter(([, v]) => v !== undefined) as [keyof TrainingConfig, unknown][];
  const conflicts: string[] = [];
  const next: Record<string, unknown> = { ...saved };
  for (const [key, value] of given) {
    if ((RESUMABLE as readonly string[]).includes(key)) {
      next[key] = value;
      continue;
    }
    // Schedules compare in canonical form: `adaptive:min=6,max=20` is the checkpoint's `adaptive:min=6,max=20,step=7,…`.
    // Async settings compare with their defaults filled in: `--async` is the checkpoint's {maxStaleness: 1, importanceCap: 2}.
    const normalised = key === 'schedule' ? canonicalSchedule(value as string | Schedule)
      : key === 'async' ? resolveAsync(value as Partial<AsyncSettings>) : value;
    if (JSON.stringify(normalised) !== JSON.stringify(saved[key])) {
      conflicts.push(`${key} ${JSON.stringify(normalised)} (checkpoint: ${JSON.stringify(saved[key])})`);
    }
  }
  if (conflicts.length > 0) {
    throw new CheckpointError('CKPT_INCOMPATIBLE', `a resumed run keeps the checkpoint's configuration; these differ: ${conflicts.join('; ')}`);
  }
  next.hiddenActions = savedHiddenActions(saved, "the checkpoint's state.json");
  return parseSavedConfig(next, "the checkpoint's state.json with this run's options");
}
