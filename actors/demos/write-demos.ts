/** Writes demos as JSON lines, atomically: a temp file renamed over the target, never half a file. */
import { renameSync, writeFileSync } from 'node:fs';
import type { Demo } from './demo.ts';

export function writeDemos(file: string, demos: readonly Demo[]): void {
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, demos.map((d) => `${JSON.stringify(d)}\n`).join(''));
  renameSync(temp, file);
}
