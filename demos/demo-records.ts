/**
 * The records of a demos file with the line each starts on, and which format the file holds. A
 * file opening with `[` is one JSON list; otherwise it is JSON lines (blank lines skipped). The
 * first record decides the format (an object with `conversations` is AgentTraj, anything else
 * ours); a later record of the other format is an error, so no file mixes them.
 */

export type DemoFileFormat = 'actorgym' | 'agenttraj';

/** The formats `actorgym collect --format` writes (write-demos.ts); here so `--help` loads nothing else. */
export const DEMO_FORMATS: readonly DemoFileFormat[] = ['actorgym', 'agenttraj'];

export interface DemoRecord {
  /** 1-based line the record starts on. */
  readonly line: number;
  readonly value: unknown;
}

export interface DemoRecords {
  readonly format: DemoFileFormat;
  readonly records: readonly DemoRecord[];
}

export function parseDemoRecords(text: string, file: string): DemoRecords {
  const body = text.replace(/^\uFEFF/, '');
  const records = body.trimStart().startsWith('[') ? listRecords(body, file) : lineRecords(body, file);
  const first = records[0];
  const format = first !== undefined && isAgentTraj(first.value) ? 'agenttraj' : 'actorgym';
  for (const { line, value } of records) {
    if (isAgentTraj(value) !== (format === 'agenttraj')) {
      throw new Error(`${file}:${line}: ${format === 'agenttraj' ? 'not an AgentTraj item' : 'an AgentTraj item'}, but line ${first?.line} began a file of ${format === 'agenttraj' ? 'AgentTraj items' : 'actorgym demos'} (one format per file)`);
    }
  }
  return { format, records };
}

function isAgentTraj(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'conversations' in value;
}

function lineRecords(text: string, file: string): DemoRecord[] {
  const records: DemoRecord[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      records.push({ line: i + 1, value: JSON.parse(line) });
    } catch (error) {
      throw new Error(`${file}:${i + 1}: not JSON (${(error as Error).message})`);
    }
  }
  return records;
}

function listRecords(text: string, file: string): DemoRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const line = errorLine(text);
    throw new Error(`${file}${line === undefined ? '' : `:${line}`}: not a JSON list (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw new Error(`${file}:1: not a JSON list`);
  const spans = elementSpans(text);
  return value.map((v: unknown, i) => ({ line: spans[i]?.line ?? 1, value: v }));
}

interface Span {
  /** 1-based line the element starts on. */
  readonly line: number;
  readonly start: number;
  readonly end: number;
}

/** Where each element of a top-level JSON list lies, by brackets and strings only (so it also works on a broken list). */
function elementSpans(text: string): Span[] {
  const spans: Span[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expecting = false;
  let current: { line: number; start: number } | undefined;
  const close = (end: number) => {
    if (current !== undefined) spans.push({ ...current, end });
    current = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line += 1;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
    if (expecting && depth === 1 && c !== ']') current = { line, start: i };
    expecting = false;
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth === 1) expecting = true;
    } else if (c === ']' || c === '}') {
      depth -= 1;
      if (depth === 0) close(i);
    } else if (c === ',' && depth === 1) {
      close(i);
      expecting = true;
    }
  }
  close(text.length);
  return spans;
}

/** The line of a broken list's first element that does not parse (V8 does not always say where). */
function errorLine(text: string): number | undefined {
  for (const span of elementSpans(text)) {
    try {
      JSON.parse(text.slice(span.start, span.end));
    } catch (error) {
      const at = /at position (\d+)/.exec((error as Error).message)?.[1];
      return at === undefined ? span.line : lineAt(text, span.start + Number(at));
    }
  }
  return undefined;
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = 0; i < position && i < text.length; i++) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}
