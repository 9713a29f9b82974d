/**
 * One JSON line per connection event, for operators (`--log-json`): where a fleet's logs are
 * collected, each line is a record with its time, server, event and fields. Off by default, so
 * a user's terminal stays readable; the sink is injectable for tests. Every string field is
 * redacted first (./redact.ts): no token reaches a log line, wherever a client put it.
 *
 * @example
 * const log = createOpsLog({ server: 'env', enabled: true });
 * log('connection.opened', { peer: '127.0.0.1:51234' });
 * // {"t":"2026-12-04T09:00:00.000Z","server":"env","event":"connection.opened","peer":"127.0.0.1:51234"}
 */
import { redactText, secretForms } from './redact.ts';

export type OpsLog = (event: string, fields?: Readonly<Record<string, string | number | boolean | undefined>>) => void;

export interface OpsLogOptions {
  /** `env`, `events`, `agentgym-http`, `dashboard`, `policy`. */
  readonly server: string;
  readonly enabled: boolean;
  /** Where lines go (default: stderr). */
  readonly write?: (line: string) => void;
  readonly now?: () => Date;
  /** The server's tokens: replaced wherever they appear in a field (the place-based rules apply to every line anyway). */
  readonly secrets?: readonly (string | undefined)[];
}

export function createOpsLog(options: OpsLogOptions): OpsLog {
  if (!options.enabled) return () => {};
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const forms = secretForms(options.secrets ?? []);
  return (event, fields = {}) => {
    const record: Record<string, unknown> = { t: now().toISOString(), server: options.server, event };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) record[key] = typeof value === 'string' ? redactText(value, forms) : value;
    write(`${JSON.stringify(record)}\n`);
  };
}
