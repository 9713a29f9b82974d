/**
 * The checkpoint directory, format version 1:
 *
 *   manifest.json    { format: "actorgym-checkpoint", version: 1, step, files: { name: { bytes, sha256 } } }
 *                    (a Hugging Face run's checkpoint adds `kind: "hf"` and other files: hf-format.ts)
 *   state.json       step, policy version, curriculum state, optimizer scalars, RNG note, run config, model config
 *   weights.bin      the learner's weights (policy/transformer/weights-io.ts)
 *   reference.bin    the frozen reference policy (the initial weights) for the KL term
 *   optimizer.bin    Adam's moments by parameter position (learner/optimizer.ts)
 *   tokenizer.json   the vocabulary (policy/tokenizer.ts)
 *
 * The manifest is written last and lists a SHA-256 for every other file, so a reader can tell a
 * complete checkpoint from a damaged one and say which file is wrong.
 *
 * RNG state. Every random draw of a run is derived from (seed, step, …) — task sampling, episode
 * seeds, sampling per (episode seed, turn), minibatch shuffles — so the seed (in the config) and
 * the step counter are the whole RNG state; nothing else needs saving.
 */
import { z } from 'zod';
import type { CurriculumState } from '../../machines/curriculum.machine.ts';
import type { TokenizerJSON } from '../../policy/tokenizer.ts';
import type { TransformerConfig } from '../../policy/transformer/config.ts';

export const CHECKPOINT_FORMAT = 'actorgym-checkpoint';
export const CHECKPOINT_VERSION = 1;

export const CHECKPOINT_FILES = ['state.json', 'weights.bin', 'reference.bin', 'optimizer.bin', 'tokenizer.json'] as const;
export type CheckpointFile = (typeof CHECKPOINT_FILES)[number];

export type CheckpointErrorCode =
  | 'CKPT_MISSING' // no checkpoint where one was asked for
  | 'CKPT_CORRUPT' // a file is missing, truncated, unparsable or fails its checksum
  | 'CKPT_VERSION' // written by another format version, or not a checkpoint at all
  | 'CKPT_INCOMPATIBLE'; // valid, but does not fit what it is loaded into

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly code: CheckpointErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** manifest.json: what the checkpoint holds, each file with its size and SHA-256. */
export const CheckpointManifestSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.literal(CHECKPOINT_VERSION),
  /** Absent for the transformer's checkpoint; "hf" for a Hugging Face model run (hf-format.ts). */
  kind: z.literal('hf').optional(),
  step: z.int().min(0),
  files: z.record(z.string(), z.object({ bytes: z.int().min(0), sha256: z.string() }).readonly()).readonly(),
});
export type CheckpointManifest = Readonly<z.infer<typeof CheckpointManifestSchema>>;

/** Which model a checkpoint holds: actorgym's own transformer, or a Hugging Face causal LM. */
export type CheckpointKind = 'transformer' | 'hf';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasNumbers = (value: unknown, keys: readonly string[]): boolean => isObject(value) && keys.every((key) => typeof value[key] === 'number');

/**
 * state.json. `config` is the run's configuration, kept as JSON here: the run that reads it back
 * parses it with its own schema (actors/training/config-schema.ts). The curriculum's state and the
 * model's config are checked for the numbers every reader needs; their other fields are the
 * curriculum machine's and the transformer's to interpret.
 */
export const CheckpointStateSchema = z.object({
  step: z.int().min(0),
  policyVersion: z.int().min(0),
  /** The curriculum machine's state (step counter, horizon, adaptive memory, last decision). */
  curriculum: z.custom<CurriculumState>((value) => hasNumbers(value, ['completedSteps', 'horizon']), 'expected the curriculum state {completedSteps, horizon, …}'),
  optimizer: z.object({ iterations: z.number(), accBeta1: z.number(), accBeta2: z.number() }).readonly(),
  rng: z.object({ seed: z.number(), derivedFrom: z.literal('seed and step') }).readonly(),
  model: z.custom<TransformerConfig>(
    (value) => hasNumbers(value, ['vocabSize', 'dModel', 'nLayers', 'nHeads', 'dFF', 'maxContext']),
    'expected a model config {vocabSize, dModel, nLayers, nHeads, dFF, maxContext, …}',
  ),
  config: z.record(z.string(), z.unknown()).readonly(),
});
export type CheckpointState = Readonly<z.infer<typeof CheckpointStateSchema>>;

/** tokenizer.json (policy/tokenizer.ts). */
export const TokenizerJsonSchema = z.object({
  kind: z.literal('actorgym-word-tokenizer'),
  version: z.literal(1),
  vocab: z.array(z.string()).readonly(),
});
const _tokenizerMatches: [z.infer<typeof TokenizerJsonSchema>, TokenizerJSON] extends [TokenizerJSON, z.infer<typeof TokenizerJsonSchema>] ? true : false = true;
void _tokenizerMatches;

/** A checkpoint in memory: the state plus the binary blobs, as written and read. */
export interface CheckpointData {
  readonly state: CheckpointState;
  readonly tokenizer: TokenizerJSON;
  readonly weights: Uint8Array;
  readonly reference: Uint8Array;
  readonly optimizer: Uint8Array;
}
