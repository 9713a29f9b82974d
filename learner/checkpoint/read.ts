/**
 * Reading a checkpoint, with every check a damaged one can fail, each naming the file and what
 * is wrong: no manifest, a manifest that is not JSON or not ours, a listed file missing, shorter
 * or longer than listed, or failing its SHA-256; then JSON and weight blobs that do not parse.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { decodeWeights } from '../../policy/transformer/weights-io.ts';
import type { z } from 'zod';
import { describeIssue } from '../../machines/describe-issue.ts';
import {
  CHECKPOINT_FILES,
  CHECKPOINT_FORMAT,
  CHECKPOINT_VERSION,
  CheckpointError,
  CheckpointManifestSchema,
  CheckpointStateSchema,
  TokenizerJsonSchema,
  type CheckpointData,
  type CheckpointManifest,
} from './format.ts';
import { errorMessage } from '../../envs/error-message.ts';

const exists = (file: string): Promise<boolean> => fs.stat(file).then(() => true, () => false);

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

function parseJson(file: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (error) {
    throw new CheckpointError('CKPT_CORRUPT', `${file} is not valid JSON (${errorMessage(error)})`);
  }
}

/** A JSON file of the checkpoint parsed with its schema; CKPT_CORRUPT names the file and the field. */
function parseFile<T>(schema: z.ZodType<T>, file: string, bytes: Uint8Array): T {
  const parsed = schema.safeParse(parseJson(file, bytes));
  if (!parsed.success) throw new CheckpointError('CKPT_CORRUPT', `${file}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

async function readManifest(dir: string): Promise<CheckpointManifest> {
  const file = path.join(dir, 'manifest.json');
  const raw = parseJson(file, await fs.readFile(file));
  const manifest = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<Record<keyof CheckpointManifest, unknown>>;
  if (manifest.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError('CKPT_VERSION', `${file} is not an actorgym checkpoint manifest (format ${JSON.stringify(manifest.format)})`);
  }
  if (manifest.version !== CHECKPOINT_VERSION) {
    throw new CheckpointError('CKPT_VERSION', `${file} has format version ${String(manifest.version)}; this actorgym reads version ${CHECKPOINT_VERSION}`);
  }
  if (typeof manifest.files !== 'object' || manifest.files === null || typeof manifest.step !== 'number') {
    throw new CheckpointError('CKPT_CORRUPT', `${file} lacks its "files" or "step" entry`);
  }
  for (const name of CHECKPOINT_FILES) {
    if (!(name in manifest.files)) throw new CheckpointError('CKPT_CORRUPT', `${file} does not list ${name}`);
  }
  const parsed = CheckpointManifestSchema.safeParse(raw);
  if (!parsed.success) throw new CheckpointError('CKPT_CORRUPT', `${file}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** Reads one listed file and checks its size and checksum against the manifest. */
async function readVerified(dir: string, manifest: CheckpointManifest, name: string): Promise<Uint8Array> {
  const file = path.join(dir, name);
  const expected = manifest.files[name]!;
  if (!(await exists(file))) throw new CheckpointError('CKPT_CORRUPT', `${file} is missing (listed in manifest.json)`);
  const bytes = new Uint8Array(await fs.readFile(file));
  if (bytes.byteLength !== expected.bytes) {
    const what = bytes.byteLength < expected.bytes ? 'truncated' : 'longer than written';
    throw new CheckpointError('CKPT_CORRUPT', `${file} is ${what}: ${bytes.byteLength} bytes, the manifest says ${expected.bytes}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== expected.sha256) {
    throw new CheckpointError('CKPT_CORRUPT', `${file} fails its checksum: sha256 ${sha256.slice(0, 12)}…, the manifest says ${expected.sha256.slice(0, 12)}…`);
  }
  return bytes;
}

/** Checks that a weights blob parses (it is decoded for real, and disposed, when loaded). */
function checkBlob(file: string, bytes: Uint8Array): void {
  try {
    const tensors = decodeWeights(bytes);
    for (const t of Object.values(tensors)) t.dispose();
  } catch (error) {
    throw new CheckpointError('CKPT_CORRUPT', `${file} is not a weights blob (${errorMessage(error)})`);
  }
}

/** The step a checkpoint is at, from its manifest alone (no weights read): for banners and prompts. */
export async function readCheckpointStep(location: string): Promise<number> {
  return (await readManifest(await locateCheckpoint(location))).step;
}

export async function readCheckpoint(location: string): Promise<{ readonly dir: string; readonly data: CheckpointData }> {
  const dir = await locateCheckpoint(location);
  const manifest = await readManifest(dir);
  const files = Object.fromEntries(
    await Promise.all(CHECKPOINT_FILES.map(async (name) => [name, await readVerified(dir, manifest, name)] as const)),
  ) as Record<(typeof CHECKPOINT_FILES)[number], Uint8Array>;
  const state = parseFile(CheckpointStateSchema, path.join(dir, 'state.json'), files['state.json']);
  const tokenizer = parseFile(TokenizerJsonSchema, path.join(dir, 'tokenizer.json'), files['tokenizer.json']);
  if (state.step !== manifest.step) {
    throw new CheckpointError('CKPT_CORRUPT', `${path.join(dir, 'state.json')} is at step ${state.step}, the manifest at ${manifest.step}`);
  }
  for (const name of ['weights.bin', 'reference.bin', 'optimizer.bin'] as const) checkBlob(path.join(dir, name), files[name]);
  return {
    dir,
    data: { state, tokenizer, weights: files['weights.bin'], reference: files['reference.bin'], optimizer: files['optimizer.bin'] },
  };
}
