/**
 * Writes demos, atomically (a temp file renamed over the target, never half a file), as our JSON
 * lines (`actorgym`) or as AgentGym's AgentTraj (`agenttraj`): a JSON list, one item per line,
 * as AgentGym's trainer loads it, or JSON lines when the file name ends in `.jsonl`.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { EnvDefinition } from '../envs/contract.ts';
import { getEnv } from '../envs/index.ts';
import type { Demo } from './demo.ts';
import { DEMO_FORMATS, type DemoFileFormat } from './demo-records.ts';
import { demoToAgentTraj } from './to-agenttraj.ts';
import { errorMessage } from '../envs/error-message.ts';

export { DEMO_FORMATS };

/** Options of `writeDemos`. */
export interface WriteDemosOptions {
  /** The env AgentTraj item ids are numbered in (its task order). Default: the registry's env of each demo. */
  readonly env?: EnvDefinition;
}

/** Writes demonstrations as our JSON lines or as AgentGym's AgentTraj, atomically (a temporary file renamed into place). */
export function writeDemos(file: string, demos: readonly Demo[], format: DemoFileFormat = 'actorgym', options: WriteDemosOptions = {}): void {
  const text = format === 'agenttraj' ? agentTrajText(demos, file.endsWith('.jsonl'), options) : jsonLines(demos);
  const temp = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function jsonLines(values: readonly unknown[]): string {
  return values.map((v) => `${JSON.stringify(v)}\n`).join('');
}

function agentTrajText(demos: readonly Demo[], lines: boolean, options: WriteDemosOptions): string {
  const items = demos.map((demo, i) => {
    try {
      return demoToAgentTraj(demo, options.env?.spec.id === demo.env ? options.env : getEnv(demo.env));
    } catch (error) {
      throw new Error(`demo ${i} (${demo.env} task ${demo.taskId}, sample ${demo.sample}) cannot be written as AgentTraj: ${errorMessage(error, { withCode: false })}`);
    }
  });
  if (lines) return jsonLines(items);
  return items.length === 0 ? '[]\n' : `[\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]\n`;
}
