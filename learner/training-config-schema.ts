/**
 * The training run's configuration as one zod schema: what config.json and every checkpoint's
 * state.json hold, with `TrainingConfig` inferred from it (config.ts re-exports it). A config read
 * back from disk is parsed with it (`parseSavedConfig`), never cast, so a corrupt file is an error
 * that names the file and the field. Values are checked here for their JSON type and enums; the
 * ranges a new run must respect are `resolveConfig`'s (config.ts).
 */
import { z } from 'zod';
import { ALGORITHMS } from '../algorithms/algorithm-names.ts';
import { describeIssue } from '../machines/describe-issue.ts';
import { CheckpointError } from './checkpoint/format.ts';
import { ACTION_WORD_ORDERS, type ActionWordOrder } from '../policy/action-words.ts';
import { OBSERVATION_FILTERS } from '../policy/observation-filter.ts';
import type { TransformerConfig } from '../policy/transformer/config.ts';
import type { LearnerArgs } from './args.ts';
import { HfRunSettingsSchema } from './hf-settings.ts';

const positive = z.int().min(1).exactOptional();
const flag = z.boolean().exactOptional();
const pairs = z.array(z.tuple([z.int(), z.int()]).readonly()).readonly();
const triples = z.array(z.tuple([z.int(), z.int(), z.int()]).readonly()).readonly();

/** Model size and options a run sets (the vocabulary size comes from its tokenizer). */
export const ModelOverridesSchema = z.object({
  dModel: positive,
  nLayers: positive,
  nHeads: positive,
  dFF: positive,
  maxContext: positive,
  tiedEmbeddings: flag,
  instructionCopy: flag,
  copyWordForms: flag,
  copyForms: z.object({ same: pairs, joined: triples }).readonly().exactOptional(),
});
export type ModelOverrides = Partial<Omit<TransformerConfig, 'vocabSize'>>;
const _overridesMatch: [z.infer<typeof ModelOverridesSchema>] extends [ModelOverrides] ? true : false = true;
void _overridesMatch;

/**
 * Everything that defines the run's maths and random draws (config.json, state.json). The
 * learner's hyperparameters (lr, epochs, clip, KL, entropy, …) are `LearnerArgs`'s
 * (learner/args.ts), one line each there.
 */
export const TrainingConfigSchema = z.object({
  env: z.string(),
  algo: z.enum(ALGORITHMS),
  /** Horizon schedule, e.g. `scaling:[6,13,20]@100`. */
  schedule: z.string(),
  /** Learner steps of the whole run (a resumed run continues up to this step). */
  steps: z.number(),
  tasksPerStep: z.number(),
  /** Rollouts per task (G). */
  groupSize: z.number(),
  seed: z.number(),
  model: ModelOverridesSchema,
  // LearnerArgs (learner/args.ts) less `algo`.
  lr: z.number(),
  epochs: z.number(),
  minibatch: z.number(),
  clipRatio: z.number(),
  klCoef: z.number(),
  entropyCoef: z.number(),
  valueCoef: z.number(),
  maxGradNorm: z.number(),
  temperature: z.number(),
  constrainedLoss: z.boolean(),
  stdNorm: z.boolean(),
  objective: z.enum(['policy-gradient', 'cross-entropy']).exactOptional(),
  /** What the model reads of each observation (policy/observation-filter.ts). */
  observation: z.enum(OBSERVATION_FILTERS),
  /** GRPO/RLOO: skip groups whose rewards are all equal. */
  dropUninformative: z.boolean(),
  /**
   * Relabel the env's symmetric words (`EnvSpec.symmetries`, BabyAI's colours) by a random
   * permutation per training episode (policy/relabel.ts). Evaluation reads the env's own words.
   * Absent in checkpoints written before it existed, which is `false`.
   */
  relabel: z.boolean().default(false),
  /**
   * Actions taken out of the choices the policy decodes from, in training and evaluation; the env
   * is untouched. For BabyAI's `check available actions`: under the `no-action-list` filter it
   * only spends a turn and replaces the view with a list the action trie already enforces.
   * Absent in checkpoints written before it existed, which is none.
   */
  hiddenActions: z.array(z.string()).readonly().default([]),
  /** Past turns the policy reads (policy/context-window.ts); 'all' = as many as fit. */
  historyTurns: z.union([z.number(), z.literal('all')]),
  /**
   * Past turns keep their action only, not their observation (policy/context-window.ts): a
   * memory of what the agent did at a few tokens a turn. Needs a numeric `historyTurns`. Absent
   * in checkpoints written before it existed, which is `false`.
   */
  historyActionsOnly: z.boolean().default(false),
  /** Tokens of the first observation kept as the instruction; 'auto' = maxContext / 2. */
  instructionTokens: z.union([z.number(), z.literal('auto')]),
  /**
   * The order the policy decodes an action's words in (policy/action-words.ts): 'reversed'
   * chooses the object before the verb. Absent in checkpoints written before it existed, which
   * is 'as-written'.
   */
  actionWords: z.enum(ACTION_WORD_ORDERS as readonly ActionWordOrder[] as [ActionWordOrder, ...ActionWordOrder[]]).default('as-written'),
  maxVocab: z.number(),
  /** Train tasks whose own text (first observation, answers to listed actions) makes the tokenizer's corpus (actors/training/tokenizer-corpus.ts). */
  corpusTasks: z.number(),
  concurrency: z.number(),
  checkpointEvery: z.number(),
  /** Test episodes evaluated at the end (0 = skip; default the whole test split). */
  evalEpisodes: z.union([z.number(), z.literal('all')]),
  /** Sampling temperature of the final evaluation (0 = greedy). */
  evalTemperature: z.number(),
  /** Horizon of the final evaluation (default the env's default horizon). */
  evalHorizon: z.union([z.number(), z.literal('default')]),
  /** The checkpoint whose weights started the run (`train --init`), if any; also its KL reference. */
  initFrom: z.string().exactOptional(),
  /**
   * A Hugging Face causal LM instead of our transformer (`--policy hf:DIR`, learner/hf-settings.ts);
   * the transformer's own fields (model, vocabulary, observation filter, context) are then unused.
   */
  hf: HfRunSettingsSchema.exactOptional(),
  /**
   * Asynchronous training (`--async`, docs/distributed-training.md): rollouts of later steps run
   * while the learner trains, on weights at most `maxStaleness` versions old; the objective
   * corrects for the behaviour policy with importance weights truncated at `importanceCap`.
   * Absent: synchronous training (every step's rollouts use the weights of the step before).
   */
  async: z.object({ maxStaleness: z.int().min(0), importanceCap: z.number().min(1) }).readonly().exactOptional(),
});
export type TrainingConfig = Readonly<z.infer<typeof TrainingConfigSchema>>;
// The learner takes a config as its args: the schema keeps every LearnerArgs field with its type.
const _learnerArgs: [TrainingConfig] extends [Omit<LearnerArgs, 'algo'>] ? true : false = true;
void _learnerArgs;

/**
 * A config read back from disk, as `TrainingConfig`; a CKPT_CORRUPT error names the file and the
 * first wrong field: `runs/a/checkpoint/state.json: field 'algo': expected one of grpo|ppo|reinforce++|rloo`.
 * Keys the schema does not know (an SFT checkpoint's `sft`, config.json's `backend`) are dropped.
 */
export function parseSavedConfig(saved: unknown, file: string): TrainingConfig {
  return parseSaved(TrainingConfigSchema, saved, file);
}

/** `saved` parsed with `schema` (a config schema extended, as SFT's), or CKPT_CORRUPT naming the file and field. */
export function parseSaved<T>(schema: z.ZodType<T>, saved: unknown, file: string): T {
  const parsed = schema.safeParse(saved);
  if (!parsed.success) throw new CheckpointError('CKPT_CORRUPT', `${file}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}
