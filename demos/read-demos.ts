/**
 * Reads a demos file, whichever of the two formats it holds (told apart by its first record):
 * our JSON lines of `Demo` (`actorgym collect`), or AgentGym's AgentTraj, as a JSON list or as
 * JSON lines, whose items are replayed in the env to rebuild exact demos (from-agenttraj.ts).
 * Anything malformed is an error naming the file and line.
 */
import { readFile } from 'node:fs/promises';
import type { EnvDefinition } from '../envs/contract.ts';
import { getEnv } from '../envs/index.ts';
import { AgentTrajItemSchema, envIdOfAgentGymName, parseItemId } from './agenttraj-item.ts';
import { DemoSchema, type Demo } from './demo.ts';
import { agentTrajToDemo } from './from-agenttraj.ts';
import { parseDemoRecords, type DemoRecord } from './demo-records.ts';
import { errorMessage } from '../envs/error-message.ts';

/** Options of `readDemos`. */
export interface ReadDemosOptions {
  /** The env AgentTraj items are replayed in. Default: the registry's env their `item_id` names. */
  readonly env?: EnvDefinition;
  /**
   * Leave out AgentTraj items that do not replay (unknown `item_id`, a turn that diverges) instead
   * of failing; `onSkip` hears each, with its line. Default false: the first one is an error.
   */
  readonly skipBad?: boolean;
  readonly onSkip?: (message: string) => void;
}

/** Reads demonstrations from a file in our JSON lines or AgentGym's AgentTraj format (detected from its content); a bad line or item is an error naming the file, line and field. */
export async function readDemos(file: string, options: ReadDemosOptions = {}): Promise<Demo[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read demos file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const { format, records } = parseDemoRecords(text, file);
  return format === 'actorgym' ? ourDemos(records, file) : await agentTrajDemos(records, file, options);
}

function ourDemos(records: readonly DemoRecord[], file: string): Demo[] {
  return records.map(({ line, value }) => {
    const parsed = DemoSchema.safeParse(value);
    if (!parsed.success) throw new Error(`${file}:${line}: not a demo: ${issues(parsed.error.issues)}`);
    return parsed.data;
  });
}

async function agentTrajDemos(records: readonly DemoRecord[], file: string, options: ReadDemosOptions): Promise<Demo[]> {
  const demos: Demo[] = [];
  const seen = new Map<string, number>();
  for (const { line, value } of records) {
    const parsed = AgentTrajItemSchema.safeParse(value);
    if (!parsed.success) throw new Error(`${file}:${line}: not an AgentTraj item: ${issues(parsed.error.issues)}`);
    const item = parsed.data;
    // Items without our field are named by their place among the items of the same task.
    const sample = seen.get(item.item_id) ?? 0;
    seen.set(item.item_id, sample + 1);
    try {
      demos.push(await agentTrajToDemo(item, options.env ?? envNamedBy(item.item_id), sample));
    } catch (error) {
      const message = `${file}:${line}: item ${item.item_id}: ${errorMessage(error, { withCode: false })}`;
      if (options.skipBad !== true) throw new Error(message);
      options.onSkip?.(message);
    }
  }
  return demos;
}

function envNamedBy(itemId: string): EnvDefinition {
  const parsed = parseItemId(itemId);
  if (parsed === undefined) throw new Error(`item_id "${itemId}" does not end in _<data_idx>`);
  return getEnv(envIdOfAgentGymName(parsed.prefix));
}

function issues(list: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]): string {
  return list.slice(0, 3).map((x) => `${x.path.length > 0 ? x.path.map(String).join('.') : '(record)'}: ${x.message}`).join('; ');
}
