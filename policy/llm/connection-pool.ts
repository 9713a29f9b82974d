/**
 * A client's own connection pool, so that its `close()` can end its sockets at once instead of
 * leaving them to idle out of the process-wide pool (undici's keep-alive, about 4 s).
 *
 * Node's `fetch` (which the `openai` SDK calls) is undici, and takes a `dispatcher` per request.
 * undici is not one of our dependencies, but Node carries it: loading its web classes installs
 * its global dispatcher, an `Agent`, under a registered symbol; a new `Agent` from that class is
 * a pool of our own that `destroy()` closes. Where that is not there (another runtime, or a global
 * dispatcher that is not a plain Agent, such as a proxy someone installed), there is no own pool:
 * requests go through the global one, and `close()` still aborts every call in flight.
 */

/** What we use of an undici Dispatcher. */
interface Dispatcher {
  destroy(): Promise<void>;
}

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

export interface ConnectionPool {
  /** For the SDK's `fetchOptions`: `{ dispatcher }`, or nothing when there is no own pool. */
  readonly fetchOptions: { readonly dispatcher?: unknown };
  /** Closes every socket of the pool at once, in flight or idle. */
  destroy(): Promise<void>;
}

export function openConnectionPool(): ConnectionPool {
  const dispatcher = newAgent();
  return {
    fetchOptions: dispatcher !== undefined ? { dispatcher } : {},
    destroy: async () => {
      await dispatcher?.destroy().catch(() => undefined);
    },
  };
}

function newAgent(): Dispatcher | undefined {
  try {
    // Node loads its undici on first use of a web class; that sets the global dispatcher.
    void new Headers();
    const global = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as { constructor?: unknown } | undefined;
    const Agent = global?.constructor as (new () => Dispatcher) | undefined;
    if (typeof Agent !== 'function' || Agent.name !== 'Agent') return undefined;
    const agent = new Agent();
    return typeof agent.destroy === 'function' ? agent : undefined;
  } catch {
    return undefined;
  }
}
