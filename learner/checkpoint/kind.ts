/** Which model a checkpoint holds, from its manifest alone: our transformer, or a Hugging Face model ("kind": "hf"). */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { locateCheckpoint } from './read.ts';

export async function checkpointKind(location: string): Promise<'transformer' | 'hf'> {
  const dir = await locateCheckpoint(location);
  try {
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { kind?: unknown };
    return manifest.kind === 'hf' ? 'hf' : 'transformer';
  } catch {
    return 'transformer'; // readCheckpoint reports what is wrong with it
  }
}
