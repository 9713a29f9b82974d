/**
 * The live event stream of a run's command (`--events-port` on rollout and train): starts the
 * event server before the run, prints its URL, and holds the run until its observers are there.
 *
 * `--wait-subscribers N` waits for N subscribers, at most `--wait-subscribers-timeout` ms, then
 * starts the run in any case (with a warning): observers that come later still get the run from
 * its start out of the replay log. Without it, the run waits a short grace for a first subscriber
 * (an observer already retrying its connection gets in before `run.started`).
 */
import type { Command } from 'commander';
import type { Observable } from 'rxjs';
import type { EventServerHandle } from '../servers/event-server/event-server.ts';
import { EVENT_FRAME_BUDGET } from '../servers/event-server/limits.ts';
import { createOpsLog } from '../servers/listener/ops-log.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { isLoopbackHost } from '../transport/wire/origin.ts';
import { frameBudgetOf, frameBudgetOption } from './frame-budget-option.ts';
import { nonNegativeInt, positiveInt } from './output.ts';

/** Without --wait-subscribers, how long the run waits for a first subscriber (ms). */
export const DEFAULT_SUBSCRIBER_GRACE_MS = 1_000;
/** Default of --wait-subscribers-timeout (ms). */
export const DEFAULT_WAIT_SUBSCRIBERS_TIMEOUT_MS = 60_000;

/** Commander fills these from `--events-port` and the options `addEventsPortOptions` adds. */
export interface EventsPortFlags {
  eventsPort?: number;
  waitSubscribers?: number;
  waitSubscribersTimeout?: number;
  allowOrigin?: string[];
  logJson?: boolean;
  /** `--frame-budget N` (frames/s; 0: none); default `EVENT_FRAME_BUDGET`. */
  frameBudget?: number;
}

/** The attribute names of the options added below (for grouping them in --help). */
export const EVENTS_PORT_OPTIONS: readonly string[] = ['waitSubscribers', 'waitSubscribersTimeout', 'allowOrigin', 'logJson', 'frameBudget'];

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addEventsPortOptions(command: Command): Command {
  return command
    .option(
      '--wait-subscribers <n>',
      `with --events-port: start the run once N observers have subscribed (default: wait up to ${DEFAULT_SUBSCRIBER_GRACE_MS / 1000} s for one; 0 = do not wait)`,
      nonNegativeInt('--wait-subscribers'),
    )
    .option(
      '--wait-subscribers-timeout <ms>',
      `the longest --wait-subscribers waits; the run then starts anyway (default ${DEFAULT_WAIT_SUBSCRIBERS_TIMEOUT_MS})`,
      positiveInt('--wait-subscribers-timeout'),
    )
    .option('--allow-origin <origin>', 'a browser origin allowed to read --events-port, e.g. http://host:8787 (repeatable; * = any)', collect)
    .option('--log-json', 'with --events-port: one JSON line on stderr per subscriber connection event, for operators')
    .addOption(frameBudgetOption('the event stream of --events-port', undefined, ` (default ${EVENT_FRAME_BUDGET.perSecond})`));
}

export interface ServeEventsOptions {
  readonly token?: string;
  readonly host?: string;
  /** Where messages go (default: stderr). */
  readonly write?: (line: string) => void;
}

/**
 * Starts the event server of `flags.eventsPort` (nothing when it is not given) and waits for its
 * subscribers as the flags say. Close the handle after the run: it drains every subscriber.
 */
export async function serveEventsPort(
  events: Observable<TrainingEvent>,
  flags: EventsPortFlags,
  options: ServeEventsOptions = {},
): Promise<EventServerHandle | undefined> {
  if (flags.eventsPort === undefined) {
    const given = EVENTS_PORT_OPTIONS.filter((key) => flags[key as keyof EventsPortFlags] !== undefined);
    if (given.length > 0) throw new Error('--wait-subscribers, --wait-subscribers-timeout, --allow-origin, --log-json and --frame-budget need --events-port');
    return undefined;
  }
  // Run data is never served beyond loopback without a token (issue 40, finding 5).
  if (options.host !== undefined && !isLoopbackHost(options.host) && (options.token === undefined || options.token === '')) {
    throw new Error(`--events-port on ${options.host}, beyond loopback, needs a token (--token or ACTORGYM_TOKEN): anyone who can reach this machine could read the run`);
  }
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const { startEventServer } = await import('../servers/event-server/event-server.ts');
  const server = await startEventServer({
    port: flags.eventsPort,
    events,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(flags.allowOrigin !== undefined ? { allowOrigins: flags.allowOrigin } : {}),
    ...(flags.logJson ? { log: createOpsLog({ server: 'events', enabled: true, secrets: [options.token] }) } : {}),
    ...(flags.frameBudget !== undefined ? { frameBudget: frameBudgetOf(flags.frameBudget) } : {}),
  });
  write(`live events: ${server.url}\n`);
  const wanted = flags.waitSubscribers;
  if (wanted === undefined) {
    await server.waitForSubscribers(1, { timeoutMs: DEFAULT_SUBSCRIBER_GRACE_MS });
    return server;
  }
  if (wanted === 0) return server;
  const timeoutMs = flags.waitSubscribersTimeout ?? DEFAULT_WAIT_SUBSCRIBERS_TIMEOUT_MS;
  const of = `${wanted} subscriber${wanted === 1 ? '' : 's'}`;
  write(`live events: waiting for ${of} to ${server.url} before starting the run (at most ${formatSeconds(timeoutMs)})\n`);
  const result = await server.waitForSubscribers(wanted, {
    timeoutMs,
    onChange: (subscribers) => write(`live events: ${subscribers} of ${of} subscribed\n`),
  });
  if (result.ok) write('live events: starting the run\n');
  else {
    write(
      `live events: warning: ${result.subscribers} of ${of} after ${formatSeconds(timeoutMs)}; starting the run anyway ` +
        '(later subscribers get the run from its start)\n',
    );
  }
  return server;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
