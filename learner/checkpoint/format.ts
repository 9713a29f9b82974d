/**
 * The checkpoint directory, format version 1:
 *
 *   manifest.json    { format: "actorgym-checkpoint", version: 1, step, files: { name: { bytes, sha256 } } }
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

export interface CheckpointManifest {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly version: typeof CHECKPOINT_VERSION;
  readonly step: number;
  readonly files: Readonly<Record<string, { readonly bytes: number; readonly sha256: string }>>;
}

/** state.json. `config` is the run's configuration (learner/training-config.ts), kept as JSON here. */
export interface CheckpointState {
  readonly step: number;
  readonly policyVersion: number;
  /** The curriculum machine's state (step counter, horizon, adaptive memory, last decision). */
  readonly curriculum: CurriculumState;
  readonly optimizer: { readonly iterations: number; readonly accBeta1: number; readonly accBeta2: number };
  readonly rng: { readonly seed: number; readonly derivedFrom: 'seed and step' };
  readonly model: TransformerConfig;
  readonly config: Readonly<Record<string, unknown>>;
}

/** A checkpoint in memory: the state plus the binary blobs, as written and read. */
export interface CheckpointData {
  readonly state: CheckpointState;
  readonly tokenizer: TokenizerJSON;
  readonly weights: Uint8Array;
  readonly reference: Uint8Array;
  readonly optimizer: Uint8Array;
}
