/**
 * Atomic checkpoint writes: every file goes into a fresh temporary sibling directory and is
 * fsynced, the manifest last; then the directory is swapped in by rename. rename(2) cannot
 * replace a non-empty directory, so the previous checkpoint is first renamed aside to
 * `<dir>.old` and removed after the swap. At every instant `<dir>` is either the old complete
 * checkpoint, the new complete one, or (between the two renames) absent with the old one intact
 * at `<dir>.old`, where the reader looks next (read.ts). A half-written checkpoint never sits at
 * `<dir>`.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CHECKPOINT_FORMAT, CHECKPOINT_VERSION, type CheckpointData, type CheckpointManifest } from './format.ts';

async function writeSynced(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await fs.open(file, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const json = (value: unknown): Uint8Array => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

/** Writes `data` as the checkpoint at `dir` (replacing one that is there); returns `dir`. */
export async function writeCheckpoint(dir: string, data: CheckpointData): Promise<string> {
  const target = path.resolve(dir);
  const tmp = `${target}.tmp-${process.pid}`;
  const old = `${target}.old`;
  await fs.rm(tmp, { recursive: true, force: true });
  await fs.mkdir(tmp, { recursive: true });
  const files: Record<string, Uint8Array> = {
    'state.json': json(data.state),
    'weights.bin': data.weights,
    'reference.bin': data.reference,
    'optimizer.bin': data.optimizer,
    'tokenizer.json': json(data.tokenizer),
  };
  const entries: Record<string, { bytes: number; sha256: string }> = {};
  for (const [name, bytes] of Object.entries(files)) {
    await writeSynced(path.join(tmp, name), bytes);
    entries[name] = { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  const manifest: CheckpointManifest = { format: CHECKPOINT_FORMAT, version: CHECKPOINT_VERSION, step: data.state.step, files: entries };
  await writeSynced(path.join(tmp, 'manifest.json'), json(manifest));

  await fs.rm(old, { recursive: true, force: true });
  const hadPrevious = await fs.stat(target).then(() => true, () => false);
  if (hadPrevious) await fs.rename(target, old);
  await fs.rename(tmp, target);
  if (hadPrevious) await fs.rm(old, { recursive: true, force: true });
  return target;
}
