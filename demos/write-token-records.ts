/**
 * Writing token records (token-record.ts) as JSON lines, each checked against the schema first:
 * as a stream, one line as each episode finishes (`rollout`), or a whole file at once (`collect`).
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { TokenRecordSchema, type TokenRecord } from './token-record.ts';

function line(record: TokenRecord): string {
  return `${JSON.stringify(TokenRecordSchema.parse(record))}\n`;
}

/** Appends one line per record to a file it creates (or empties) when opened. */
export class TokenRecordStream {
  readonly #fd: number;
  #count = 0;
  #drift = 0;

  constructor(readonly file: string) {
    this.#fd = openSync(file, 'w');
  }

  write(record: TokenRecord): void {
    writeSync(this.#fd, line(record));
    this.#count += 1;
    this.#drift += record.drift ?? 0;
  }

  get written(): number {
    return this.#count;
  }

  /** Turns written that drift (token-record.ts `drift`), over all records. */
  get driftTurns(): number {
    return this.#drift;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** The whole file at once. */
export function writeTokenRecords(file: string, records: readonly TokenRecord[]): void {
  writeFileSync(file, records.map(line).join(''));
}
