/**
 * The connection-budget flags of every command that starts a server (`serve`, `serve-policy`,
 * `rollout-server`, `dashboard`), declared once so their names, defaults and help agree
 * (docs/reliability.md, "connection budgets"). `serve` places them one by one among its other
 * flags; the others add all four with `addConnectionBudgetOptions`.
 */
import { Option, type Command } from 'commander';
import {
  SERVER_HANDSHAKE_TIMEOUT_MS,
  SERVER_MAX_CONNECTIONS,
  SERVER_MAX_PENDING_CONNECTIONS,
  SERVER_MAX_PENDING_PER_ADDRESS,
} from '../transport/wire/limits.ts';
import { positiveInt } from './output.ts';

/** What commander fills in from the four flags. */
export interface ConnectionBudgetFlags {
  maxConnections: number;
  maxPendingConnections: number;
  maxPendingPerAddress: number;
  handshakeTimeout: number;
}

const FLAGS: Record<keyof ConnectionBudgetFlags, readonly [flags: string, description: string, fallback: number]> = {
  maxConnections: ['--max-connections <n>', 'authenticated connections at once; more are refused with 503 (keep it plus 4 × --max-pending-connections below `ulimit -n`)', SERVER_MAX_CONNECTIONS],
  maxPendingConnections: ['--max-pending-connections <n>', 'connections not authenticated yet (idle, mid-handshake, health probes); past it the oldest is closed', SERVER_MAX_PENDING_CONNECTIONS],
  maxPendingPerAddress: ['--max-pending-per-address <n>', 'connections not authenticated yet from one address (IPv6: one /64); past it its oldest is closed', SERVER_MAX_PENDING_PER_ADDRESS],
  handshakeTimeout: ['--handshake-timeout <ms>', 'a connection that has not authenticated (upgraded, or sent an admitted HTTP request) by then is closed', SERVER_HANDSHAKE_TIMEOUT_MS],
};

/** One of the four flags, new each call (a commander Option belongs to one command). */
export function connectionBudgetOption(name: keyof ConnectionBudgetFlags): Option {
  const [flags, description, fallback] = FLAGS[name];
  const long = flags.split(' ')[0] as string;
  return new Option(flags, description).argParser(positiveInt(long)).default(fallback);
}

/** Adds `--max-connections`, `--max-pending-connections`, `--max-pending-per-address` and `--handshake-timeout`. */
export function addConnectionBudgetOptions(command: Command): Command {
  for (const name of Object.keys(FLAGS) as (keyof ConnectionBudgetFlags)[]) command.addOption(connectionBudgetOption(name));
  return command;
}

/** The flags as the servers take them (`HttpConnectionLimits`, servers/listener/http-connection-budget.ts). */
export function connectionLimitsOf(flags: ConnectionBudgetFlags) {
  return {
    maxConnections: flags.maxConnections,
    maxPendingConnections: flags.maxPendingConnections,
    maxPendingPerAddress: flags.maxPendingPerAddress,
    handshakeTimeoutMs: flags.handshakeTimeout,
  };
}
