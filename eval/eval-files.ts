/**
 * The evaluation directory:
 *
 *   DIR/config.json     what is evaluated (EvalConfig); a resumed run must match it
 *   DIR/episodes.jsonl  one line per finished attempt, appended as each ends (EvalEpisodeRecord)
 *   DIR/results.json    the metrics (EvalResults), written at the end of every session
 *   DIR/results.md      the same as tables in the layout of the paper's
 *
 * A killed process may leave half a line at the end of episodes.jsonl: every line is written
 * whole with its newline, so text after the last newline is such a cut and is removed before the
 * next append. A bad line before that was not written by an evaluation and is an error.
 * Whole-file writes go to a temporary file that is then renamed over the old one, so a reader
 * sees the old file or the new one, never half of one. One process per directory at a time.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../envs/error-message.ts';
import type { EvalConfig } from './eval-config.ts';
import { EvalError } from './eval-error.ts';
import { parseWith } from '../machines/describe-issue.ts';
import { EvalEpisodeRecordSchema, type EvalEpisodeRecord } from './eval-record.ts';

export interface EpisodesRead {
  readonly records: EvalEpisodeRecord[];
  /** Bytes of a cut last line that were removed. */
  readonly cutBytes: number;
}

export class EvalDir {
  readonly root: string;
  readonly configFile: string;
  readonly episodesFile: string;
  readonly resultsFile: string;
  readonly markdownFile: string;

  constructor(out: string) {
    this.root = path.resolve(out);
    this.configFile = path.join(this.root, 'config.json');
    this.episodesFile = path.join(this.root, 'episodes.jsonl');
    this.resultsFile = path.join(this.root, 'results.json');
    this.markdownFile = path.join(this.root, 'results.md');
  }

  readConfig(): Record<string, unknown> | undefined {
    return this.#readJson(this.configFile);
  }

  writeConfig(config: EvalConfig): void {
    mkdirSync(this.root, { recursive: true });
    this.#writeAtomic(this.configFile, `${JSON.stringify(config, null, 2)}\n`);
  }

  readResults(): Record<string, unknown> | undefined {
    return this.#readJson(this.resultsFile);
  }

  writeResults(results: object, markdown: string): void {
    this.#writeAtomic(this.resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    this.#writeAtomic(this.markdownFile, markdown);
  }

  /** The records so far; a cut last line is removed from the file. */
  readEpisodes(): EpisodesRead {
    if (!existsSync(this.episodesFile)) return { records: [], cutBytes: 0 };
    const bytes = readFileSync(this.episodesFile);
    const end = bytes.lastIndexOf(0x0a) + 1;
    const cutBytes = bytes.length - end;
    if (cutBytes > 0) truncateSync(this.episodesFile, end);
    const lines = bytes.subarray(0, end).toString('utf8').split('\n');
    lines.pop(); // after the last newline
    const records = lines.map((line, index) => {
      const record = parseJsonLine(line);
      if (!record.ok) throw new EvalError('EVAL_CORRUPT', `${this.episodesFile}:${index + 1} is not a JSON line written by an evaluation (${record.error})`);
      return record.value;
    });
    return { records, cutBytes };
  }

  /** One whole line; appendFileSync returns after the write, so a later kill loses no finished episode. */
  appendEpisode(record: EvalEpisodeRecord): void {
    appendFileSync(this.episodesFile, `${JSON.stringify(record)}\n`);
  }

  #readJson(file: string): Record<string, unknown> | undefined {
    if (!existsSync(file)) return undefined;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      throw new EvalError('EVAL_CORRUPT', `${file} is not valid JSON`);
    }
  }

  #writeAtomic(file: string, text: string): void {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  }
}

function parseJsonLine(line: string): ReturnType<typeof parseWith<EvalEpisodeRecord>> {
  try {
    return parseWith(EvalEpisodeRecordSchema, JSON.parse(line));
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}
