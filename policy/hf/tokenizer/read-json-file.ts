/** Reads a JSON file of a model folder and parses it with its schema; errors name the file and field. */
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { HfTokenizerError } from './hf-tokenizer-error.ts';

/** `undefined` when the file does not exist and `optional` is set. */
export function readJsonFile<S extends z.ZodType>(path: string, schema: S, optional: true): z.infer<S> | undefined;
export function readJsonFile<S extends z.ZodType>(path: string, schema: S, optional?: false): z.infer<S>;
export function readJsonFile<S extends z.ZodType>(path: string, schema: S, optional = false): z.infer<S> | undefined {
  if (!existsSync(path)) {
    if (optional) return undefined;
    throw new HfTokenizerError('HF_TOKENIZER_FILE_MISSING', `${path} does not exist`, path);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new HfTokenizerError('HF_TOKENIZER_CONFIG_INVALID', `${path} is not JSON: ${(err as Error).message}`, path);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    const where = field === '' ? 'the top level' : `field "${field}"`;
    throw new HfTokenizerError(
      'HF_TOKENIZER_CONFIG_INVALID',
      `${path}: ${where}: ${issue?.message ?? 'invalid'}`,
      path,
      field === '' ? undefined : field,
    );
  }
  return parsed.data;
}
