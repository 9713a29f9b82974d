/** Reads a demos file (JSON lines of `Demo`), naming the line of anything malformed. */
import { readFile } from 'node:fs/promises';
import type { EnvDefinition } from '../../envs/contract.ts';
import { DemoSchema, type Demo } from './demo.ts';

export async function readDemos(file: string, _options: { readonly env?: EnvDefinition } = {}): Promise<Demo[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read demos file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const demos: Demo[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON`);
    }
    const parsed = DemoSchema.safeParse(value);
    if (!parsed.success) throw new Error(`${file}:${i + 1}: not a demo: ${parsed.error.issues.map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`);
    demos.push(parsed.data);
  }
  return demos;
}
