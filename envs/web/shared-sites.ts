/**
 * The process-wide site server that every web env instance uses, started on the first lease and
 * closed a few seconds after the last lease is returned (so back-to-back episodes and runs reuse
 * it, and a finished command is not kept alive). Its listeners are unref'd for the same reason.
 */
import type { SiteServer, SiteServerOptions } from './site-server.ts';

export interface SiteLease {
  readonly server: SiteServer;
  /** Gives the lease back; idempotent. */
  release(): void;
}

const IDLE_CLOSE_MS = 5000;

let starting: Promise<SiteServer> | undefined;
let leases = 0;
let idleTimer: NodeJS.Timeout | undefined;

/** A lease on the shared site server, starting it when none runs. */
export async function leaseSites(options: SiteServerOptions = {}): Promise<SiteLease> {
  clearTimeout(idleTimer);
  leases += 1;
  // Imported here so that loading the env registry does not load the HTTP server and SQLite.
  starting ??= import('./site-server.ts').then(({ startSiteServer }) => startSiteServer({ ...options, unref: true }));
  let server: SiteServer;
  try {
    server = await starting;
  } catch (error) {
    leases -= 1;
    starting = undefined;
    throw error;
  }
  let released = false;
  return {
    server,
    release() {
      if (released) return;
      released = true;
      leases -= 1;
      if (leases > 0) return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => void closeSharedSites(), IDLE_CLOSE_MS);
      idleTimer.unref();
    },
  };
}

/** Closes the shared server now (tests, shutdown). Leases still held see a closed server. */
export async function closeSharedSites(): Promise<void> {
  clearTimeout(idleTimer);
  const current = starting;
  starting = undefined;
  if (current) await (await current.catch(() => undefined))?.close();
}
