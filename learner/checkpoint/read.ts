/**
 * Reading the transformer's checkpoint, with every check a damaged one can fail, each naming the
 * file and what is wrong (verified-files.ts holds the checks, shared with a Hugging Face run's
 * checkpoint: hf-read.ts); and finding a checkpoint, of either kind, from a run directory.
 */
import path from 'node:path';
import { CHECKPOINT_FILES, CheckpointError, CheckpointStateSchema, TokenizerJsonSchema, type CheckpointData, type CheckpointKind } from './format.ts';
import { checkBlob, checkStep, exists, manifestKind, parseFile, readAllVerified, readManifest } from './verified-files.ts';

/**
 * The checkpoint directory for `location`: the directory itself when it holds a manifest, else
 * its `checkpoint/` (a run directory), else its `checkpoint.old/`, else `<location>.old`. A crash
 * between the renames of a write leaves the previous checkpoint complete at `.old` and nothing at
 * `checkpoint/` (write.ts describes the states); `checkpoint/` is always complete when present,
 * so it is preferred.
 */
export async function locateCheckpoint(location: string): Promise<string> {
  const dir = path.resolve(location);
  for (const candidate of [dir, path.join(dir, 'checkpoint'), path.join(dir, 'checkpoint.old'), `${dir}.old`]) {
    if (await exists(path.join(candidate, 'manifest.json'))) return candidate;
  }
  if (!(await exists(dir))) throw new CheckpointError('CKPT_MISSING', `no checkpoint at ${dir}: the directory does not exist`);
  throw new CheckpointError('CKPT_MISSING', `no checkpoint at ${dir}: expected ${path.join(dir, 'manifest.json')} or ${path.join(dir, 'checkpoint', 'manifest.json')}`);
}

/** The step a checkpoint is at, from its manifest alone (no weights read): for banners and prompts. */
export async function readCheckpointStep(location: string): Promise<number> {
  return (await readManifest(await locateCheckpoint(location))).step;
}

/** Which model the checkpoint at `location` holds (its manifest alone is read). */
export async function checkpointKind(location: string): Promise<CheckpointKind> {
  return manifestKind(await readManifest(await locateCheckpoint(location)));
}

/** Reads the transformer's checkpoint; a Hugging Face run's is CKPT_INCOMPATIBLE (hf-read.ts reads it). */
export async function readCheckpoint(location: string): Promise<{ readonly dir: string; readonly data: CheckpointData }> {
  const dir = await locateCheckpoint(location);
  const manifest = await readManifest(dir, 'transformer', CHECKPOINT_FILES);
  const files = await readAllVerified(dir, manifest, CHECKPOINT_FILES);
  const state = parseFile(CheckpointStateSchema, path.join(dir, 'state.json'), files['state.json']);
  const tokenizer = parseFile(TokenizerJsonSchema, path.join(dir, 'tokenizer.json'), files['tokenizer.json']);
  checkStep(dir, manifest, state.step);
  for (const name of ['weights.bin', 'reference.bin', 'optimizer.bin'] as const) checkBlob(path.join(dir, name), files[name]);
  return {
    dir,
    data: { state, tokenizer, weights: files['weights.bin'], reference: files['reference.bin'], optimizer: files['optimizer.bin'] },
  };
}
