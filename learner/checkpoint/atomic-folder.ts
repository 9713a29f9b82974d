/**
 * A folder written whole or not at all (`actorgym export --out`): the files go into a fresh
 * sibling `<out>.partial-XXXXXX`, each fsynced, which is renamed to `<out>` only when complete; on
 * any error it is removed. So `<out>` is never half-written: it is absent, the previous folder
 * untouched, or the new one whole. An existing non-empty `<out>` is refused unless `force`; then it
 * is moved aside and dropped only after the new folder is in place (rename(2) cannot replace a
 * non-empty folder). An empty `<out>` folder (made by the user in advance) is simply replaced.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** A file's contents: bytes, a file to copy, or a function that writes the file itself (to stream a large one). */
export type FolderSource = Uint8Array | { readonly copyFrom: string } | { readonly writeTo: (file: string) => Promise<void> };

export class OutExistsError extends Error {
  override readonly name = 'OutExistsError';
  readonly code = 'EXPORT_OUT_EXISTS';
  constructor(readonly out: string) {
    super(`EXPORT_OUT_EXISTS: ${out} already exists and is not empty; choose another --out, or pass --force to replace it`);
  }
}

/** Whether `target` exists and is something other than an empty folder. */
export async function occupied(target: string): Promise<boolean> {
  const stat = await fs.stat(target).catch(() => undefined);
  if (stat === undefined) return false;
  return !stat.isDirectory() || (await fs.readdir(target)).length > 0;
}

async function writeSynced(file: string, source: FolderSource): Promise<void> {
  if ('copyFrom' in source) await fs.copyFile(source.copyFrom, file);
  else if ('writeTo' in source) await source.writeTo(file);
  const handle = await fs.open(file, source instanceof Uint8Array ? 'w' : 'r+');
  try {
    if (source instanceof Uint8Array) await handle.writeFile(source);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `files` (name → bytes or a file to copy) as the folder `out`; returns its absolute path. */
export async function writeFolderAtomically(out: string, files: ReadonlyArray<readonly [string, FolderSource]>, options: { readonly force?: boolean } = {}): Promise<string> {
  const target = path.resolve(out);
  if (!options.force && (await occupied(target))) throw new OutExistsError(target);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const partial = await fs.mkdtemp(`${target}.partial-`);
  try {
    for (const [name, source] of files) await writeSynced(path.join(partial, name), source);
    const present = await fs.stat(target).then(() => true, () => false);
    if (!present) {
      await fs.rename(partial, target);
      return target;
    }
    const old = `${partial}.old`;
    await fs.rename(target, old);
    try {
      await fs.rename(partial, target);
    } catch (e) {
      await fs.rename(old, target);
      throw e;
    }
    await fs.rm(old, { recursive: true, force: true });
    return target;
  } catch (e) {
    await fs.rm(partial, { recursive: true, force: true });
    throw e;
  }
}
