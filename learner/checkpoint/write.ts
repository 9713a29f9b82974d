/**
 * Crash-safe checkpoint writes. The folders next to `<dir>` (e.g. `run/checkpoint`):
 *
 *   <dir>            the current checkpoint           always complete when present
 *   <dir>.old        the previous one, transiently    always complete when present
 *   <dir>.tmp-PID    the one being written            complete only once its manifest is in
 *   <dir>.trash-PID  a retired `.old` being deleted   never read
 *
 * A write goes through these states; a crash (kill -9, power loss) anywhere leaves one of them,
 * and in every one that follows a first complete write the reader (read.ts: `<dir>`, then
 * `<dir>.old`) finds a complete checkpoint:
 *
 *   1. the temp folder is filled, every file fsynced, the manifest last, then the folder fsynced;
 *      `<dir>` / `<dir>.old` untouched.
 *   2. only when `<dir>` exists: a leftover `<dir>.old` is retired (renamed to trash, then
 *      deleted: `<dir>` is complete meanwhile); then `<dir>` is renamed to `<dir>.old` (rename(2)
 *      cannot replace a non-empty folder). Now only `<dir>.old` holds a checkpoint.
 *   3. the temp folder is renamed to `<dir>`: the new checkpoint is in place.
 *   4. `<dir>.old`, if any, is retired.
 *
 * After a crash between 2 and 3 only `<dir>.old` exists; the next write skips step 2 (there is no
 * `<dir>` to move) and never deletes `<dir>.old` before step 3. Each rename is followed by an
 * fsync of the parent folder, so the order survives a power loss too. Retiring renames before
 * deleting because a recursive delete is not atomic: `.old` is either whole or gone. A write
 * leaves its temp or trash folder behind only when it dies; the next write of the same process
 * removes it, and `removeStaleCheckpointTemps` (stale.ts) removes those of dead processes at the
 * start of a run. Errors are not cleaned up on purpose: a failed write looks exactly like a crash,
 * which is the case this file is built for (and what the tests inject through `onStage`).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { CHECKPOINT_FILES, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, type CheckpointData, type CheckpointManifest } from './format.ts';

/** The steps of a write after its files are in the temp folder, in order. */
const STAGES_AFTER_FILES = [
  'manifest-written',
  'temp-synced',
  'stale-old-trashed',
  'stale-trash-removed',
  'current-moved-aside',
  'new-in-place',
  'old-trashed',
  'trash-removed',
] as const;

/** A step of a write: `<file>-written` for each file of the checkpoint, in the order given. */
export type CheckpointWriteStage = 'temp-created' | `${string}-written` | (typeof STAGES_AFTER_FILES)[number];

/** The steps of a write of these files, in order; a step that has nothing to do (no `<dir>` yet) is skipped. */
export function checkpointWriteStages(files: readonly string[]): readonly CheckpointWriteStage[] {
  return ['temp-created', ...files.map((name): CheckpointWriteStage => `${name}-written`), ...STAGES_AFTER_FILES];
}

/** The steps of a write of the transformer's checkpoint (format.ts: CHECKPOINT_FILES). */
export const CHECKPOINT_WRITE_STAGES = checkpointWriteStages(CHECKPOINT_FILES);

export interface WriteCheckpointOptions {
  /**
   * Called after each completed step, before the next one starts (a test seam: the crash tests
   * throw or exit the process here). Awaited.
   */
  readonly onStage?: (stage: CheckpointWriteStage) => void | Promise<void>;
}

const exists = (file: string): Promise<boolean> => fs.stat(file).then(() => true, () => false);

async function writeSynced(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await fs.open(file, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a folder, so the entries created or renamed in it are on disk. */
async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (error) {
    // Windows cannot open a folder for fsync; its renames are not ordered by one anyway.
    if ((error as NodeJS.ErrnoException).code === 'EISDIR' || (error as NodeJS.ErrnoException).code === 'EPERM') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A JSON file of a checkpoint, as every one is written (two-space indent, final newline). */
export const checkpointJson = (value: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

/** The sibling folders of a checkpoint at `target` (see the module note). */
export function checkpointSiblings(target: string, pid = process.pid): { readonly old: string; readonly tmp: string; readonly trash: string } {
  return { old: `${target}.old`, tmp: `${target}.tmp-${pid}`, trash: `${target}.trash-${pid}` };
}

/** What a checkpoint folder holds: its files in write order (the manifest comes last, on its own). */
export interface CheckpointContents {
  readonly step: number;
  /** Recorded in the manifest when set ("hf"); the transformer's checkpoint has none. */
  readonly kind?: CheckpointManifest['kind'];
  readonly files: ReadonlyArray<readonly [name: string, bytes: Uint8Array]>;
}

/** Writes `data` as the transformer's checkpoint at `dir` (replacing one that is there); returns `dir`. */
export async function writeCheckpoint(dir: string, data: CheckpointData, options: WriteCheckpointOptions = {}): Promise<string> {
  const files: [string, Uint8Array][] = [
    ['state.json', checkpointJson(data.state)],
    ['weights.bin', data.weights],
    ['reference.bin', data.reference],
    ['optimizer.bin', data.optimizer],
    ['tokenizer.json', checkpointJson(data.tokenizer)],
  ];
  return writeCheckpointFiles(dir, { step: data.state.step, files }, options);
}

/**
 * Writes any named set of files as a checkpoint at `dir`, crash-safe as the module note says,
 * with manifest.json (their sizes and SHA-256) last; returns `dir`.
 */
export async function writeCheckpointFiles(dir: string, contents: CheckpointContents, options: WriteCheckpointOptions = {}): Promise<string> {
  const target = path.resolve(dir);
  const parent = path.dirname(target);
  const { old, tmp, trash } = checkpointSiblings(target);
  const stage = async (name: CheckpointWriteStage): Promise<void> => {
    await options.onStage?.(name);
  };
  const retireOld = async (prefix: '' | 'stale-'): Promise<void> => {
    await fs.rename(old, trash);
    await syncDir(parent);
    await stage(`${prefix}old-trashed`);
    await fs.rm(trash, { recursive: true, force: true });
    await stage(`${prefix}trash-removed`);
  };

  // 1. The new checkpoint, complete and on disk, in the temp folder. Own leftovers of a failed
  //    earlier write go first (another process's are stale.ts's business).
  await fs.rm(tmp, { recursive: true, force: true });
  await fs.rm(trash, { recursive: true, force: true });
  await fs.mkdir(tmp, { recursive: true });
  await stage('temp-created');
  const entries: Record<string, { bytes: number; sha256: string }> = {};
  for (const [name, bytes] of contents.files) {
    await writeSynced(path.join(tmp, name), bytes);
    entries[name] = { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
    await stage(`${name}-written`);
  }
  // Key order as version 1 always wrote it; `kind` only when there is one (byte-compatible).
  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    ...(contents.kind === undefined ? {} : { kind: contents.kind }),
    step: contents.step,
    files: entries,
  };
  await writeSynced(path.join(tmp, 'manifest.json'), checkpointJson(manifest));
  await stage('manifest-written');
  await syncDir(tmp);
  await stage('temp-synced');

  // 2. Move the current checkpoint aside; `.old` is only ever deleted while `<dir>` is complete.
  if (await exists(target)) {
    if (await exists(old)) await retireOld('stale-');
    await fs.rename(target, old);
    await syncDir(parent);
    await stage('current-moved-aside');
  }

  // 3. The new one in place; 4. the previous one gone.
  await fs.rename(tmp, target);
  await syncDir(parent);
  await stage('new-in-place');
  if (await exists(old)) await retireOld('');
  return target;
}
