/** What `actorgym export` does (its options are in export.ts). */
import { exportHfCheckpoint } from '../../learner/checkpoint/hf-export.ts';
import { selectBackend } from '../../policy/backend.ts';
import { printJson } from '../output.ts';
import type { ExportCommandOptions } from './export.ts';

const size = (bytes: number): string => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);

export async function runExport(options: ExportCommandOptions): Promise<void> {
  await selectBackend(options.backend);
  const result = await exportHfCheckpoint(options.checkpoint, {
    format: options.format,
    out: options.out,
    dtype: options.dtype,
    force: options.force ?? false,
    ...(options.baseModelName !== undefined ? { baseModelName: options.baseModelName } : {}),
  });
  if (options.json) return printJson(result);
  const what = result.format === 'peft' ? 'PEFT adapter' : 'merged model';
  process.stdout.write(`wrote ${what} (${result.dtype}) to ${result.out} from ${result.checkpoint} (step ${result.step}, ${result.mode} run)\n`);
  for (const f of result.files) process.stdout.write(`  ${f.name.padEnd(26)} ${size(f.bytes)}\n`);
}


