/**
 * The checks every checkpoint reader makes, whatever model it holds, each naming the file and what
 * is wrong: no manifest, a manifest that is not JSON, not ours, of another version or of the other
 * kind of model; a listed file missing, shorter or longer than listed, or failing its SHA-256;
 * then JSON files that do not parse or do not match their schema (naming the field), and weight
 * blobs that do not decode.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { errorMessage } from '../../envs/error-message.ts';
import { describeIssue } from '../../machines/describe-issue.ts';
import { decodeWeights } from '../../policy/transformer/weights-io.ts';
import { CHECKPOINT_FORMAT, CHECKPOINT_VERSION, CheckpointError, CheckpointManifestSchema, type CheckpointKind, type CheckpointManifest } from './format.ts';

export const exists = (file: string): Promise<boolean> => fs.stat(file).then(() => true, () => false);

export function parseJson(file: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (error) {
    throw new CheckpointError('CKPT_CORRUPT', `${file} is not valid JSON (${errorMessage(error)})`);
  }
}

/** A JSON file of the checkpoint parsed with its schema; CKPT_CORRUPT names the file and the field. */
export function parseFile<T>(schema: z.ZodType<T>, file: string, bytes: Uint8Array): T {
  const parsed = schema.safeParse(parseJson(file, bytes));
  if (!parsed.success) throw new CheckpointError('CKPT_CORRUPT', `${file}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** What to do with a checkpoint of the other kind, told to whoever tried to read it as this one. */
const OTHER_KIND: Readonly<Record<CheckpointKind, string>> = {
  hf:
    'is the checkpoint of a Hugging Face model run (kind "hf"), not of actorgym\'s own transformer: ' +
    'resume it with the command that trained it (its --policy hf:DIR), or write it out as a model with ' +
    '`actorgym export --checkpoint RUN --format peft|merged --out DIR`',
  transformer:
    'is the checkpoint of actorgym\'s own transformer, not of a Hugging Face model run: it is not a Hugging Face ' +
    'model and cannot be exported as one; use it with `actorgym eval --checkpoint RUN` or `--agent checkpoint:RUN`',
};

/** The kind a manifest declares (absent: the transformer's). */
export function manifestKind(manifest: Pick<CheckpointManifest, 'kind'>): CheckpointKind {
  return manifest.kind ?? 'transformer';
}

/**
 * manifest.json of the checkpoint at `dir`, checked to be ours, of this version, of `kind`, and to
 * list `required`; `kind` undefined accepts either (to find out which one it is).
 */
export async function readManifest(dir: string, kind?: CheckpointKind, required: readonly string[] = []): Promise<CheckpointManifest> {
  const file = path.join(dir, 'manifest.json');
  const raw = parseJson(file, await fs.readFile(file));
  const manifest = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<Record<keyof CheckpointManifest, unknown>>;
  if (manifest.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError('CKPT_VERSION', `${file} is not an actorgym checkpoint manifest (format ${JSON.stringify(manifest.format)})`);
  }
  if (manifest.version !== CHECKPOINT_VERSION) {
    throw new CheckpointError('CKPT_VERSION', `${file} has format version ${String(manifest.version)}; this actorgym reads version ${CHECKPOINT_VERSION}`);
  }
  if (manifest.kind !== undefined && manifest.kind !== 'hf') {
    throw new CheckpointError('CKPT_VERSION', `${file} holds a checkpoint of kind ${JSON.stringify(manifest.kind)}; this actorgym reads "hf" or none (its own transformer)`);
  }
  const found = manifestKind({ kind: manifest.kind });
  if (kind !== undefined && found !== kind) throw new CheckpointError('CKPT_INCOMPATIBLE', `${dir} ${OTHER_KIND[found]}`);
  if (typeof manifest.files !== 'object' || manifest.files === null || typeof manifest.step !== 'number') {
    throw new CheckpointError('CKPT_CORRUPT', `${file} lacks its "files" or "step" entry`);
  }
  for (const name of required) {
    if (!(name in manifest.files)) throw new CheckpointError('CKPT_CORRUPT', `${file} does not list ${name}`);
  }
  const parsed = CheckpointManifestSchema.safeParse(raw);
  if (!parsed.success) throw new CheckpointError('CKPT_CORRUPT', `${file}: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** Reads one listed file and checks its size and checksum against the manifest. */
export async function readVerified(dir: string, manifest: CheckpointManifest, name: string): Promise<Uint8Array> {
  const file = path.join(dir, name);
  const expected = manifest.files[name];
  if (expected === undefined) throw new CheckpointError('CKPT_CORRUPT', `${path.join(dir, 'manifest.json')} does not list ${name}`);
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

/** Every listed file of `names`, verified, by name. */
export async function readAllVerified<N extends string>(dir: string, manifest: CheckpointManifest, names: readonly N[]): Promise<Record<N, Uint8Array>> {
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await readVerified(dir, manifest, name)] as const))) as Record<N, Uint8Array>;
}

/** Checks that a weights blob parses (it is decoded for real, and disposed, when loaded). */
export function checkBlob(file: string, bytes: Uint8Array): void {
  try {
    const tensors = decodeWeights(bytes);
    for (const t of Object.values(tensors)) t.dispose();
  } catch (error) {
    throw new CheckpointError('CKPT_CORRUPT', `${file} is not a weights blob (${errorMessage(error)})`);
  }
}

/** The state's step must be the manifest's: a state.json from another write is damage. */
export function checkStep(dir: string, manifest: CheckpointManifest, step: number): void {
  if (step !== manifest.step) {
    throw new CheckpointError('CKPT_CORRUPT', `${path.join(dir, 'state.json')} is at step ${step}, the manifest at ${manifest.step}`);
  }
}
