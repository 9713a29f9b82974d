/** Step 1 of an SFT run: the demos, read from every file, checked against the env, filtered. */
import { createHash } from 'node:crypto';
import type { EnvDefinition } from '../../envs/contract.ts';
import type { Demo } from '../../demos/demo.ts';
import { readDemos } from '../../demos/read-demos.ts';

export interface LoadedDemos {
  /** Every demo read, in file order. */
  readonly all: readonly Demo[];
  /** The ones trained on (only the successful ones with `onlySuccess`). */
  readonly kept: readonly Demo[];
}

export async function loadDemos(files: readonly string[], env: EnvDefinition, onlySuccess: boolean): Promise<LoadedDemos> {
  const all: Demo[] = [];
  for (const file of files) {
    const demos = await readDemos(file, { env });
    const foreign = demos.find((d) => d.env !== env.spec.id);
    if (foreign !== undefined) throw new Error(`${file}: holds demos of env "${foreign.env}", not "${env.spec.id}"`);
    all.push(...demos);
  }
  const kept = onlySuccess ? all.filter((d: Demo) => d.outcome === 'success') : all;
  if (kept.length === 0) throw new Error(`no ${onlySuccess ? 'successful ' : ''}demos in ${files.join(', ')} (${all.length} read)`);
  return { all, kept };
}

/** A digest of the demos as read, in order: a resumed run must clone the same demos. */
export const digestOf = (demos: readonly Demo[]): string => createHash('sha256').update(JSON.stringify(demos)).digest('hex');
