/**
 * The attackers of the server-flood benchmark (issue 40), shared with its tests: idle TCP
 * sockets that never authenticate, from one loopback address or spread over 127.0.0.0/8 (Linux
 * routes the whole /8 to loopback, so `localAddress` can be any 127.x.y.z), kept open: one the
 * server closes is opened again, as a determined attacker would.
 */
import { connect, type Socket } from 'node:net';

export interface IdleFlood {
  /** Sockets open now. */
  readonly open: () => number;
  /** Sockets the server closed since start (each was replaced). */
  readonly closedByServer: () => number;
  /** Stops replacing and destroys every socket. */
  stop(): void;
}

export interface IdleFloodOptions {
  readonly port: number;
  readonly count: number;
  /** `one`: every socket from 127.0.0.1; `spread`: each from its own 127.x.y.z. */
  readonly from: 'one' | 'spread';
  /** Open again the sockets the server closes (default true). */
  readonly reopen?: boolean;
  /** Bytes written after connecting (e.g. half a request header); default none. */
  readonly firstBytes?: string;
  /** Keep this end open after the server's FIN (a peer that never closes); default false. */
  readonly halfOpen?: boolean;
}

/** The i-th source address of a spread flood: 127.1.0.1, 127.1.0.2, … 127.1.0.254, 127.1.1.1, … (never 127.0.0.1). */
export function spreadAddress(i: number): string {
  const host = 1 + (i % 254);
  const block = Math.floor(i / 254);
  return `127.${1 + (Math.floor(block / 256) % 254)}.${block % 256}.${host}`;
}

/** Opens `count` idle sockets and resolves once each has connected (or failed once). */
export async function startIdleFlood(options: IdleFloodOptions): Promise<IdleFlood> {
  const sockets = new Set<Socket>();
  let stopped = false;
  let closedByServer = 0;
  const open = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const localAddress = options.from === 'spread' ? spreadAddress(i) : '127.0.0.1';
      const socket = connect({ port: options.port, host: '127.0.0.1', localAddress, allowHalfOpen: options.halfOpen ?? false });
      sockets.add(socket);
      socket.on('error', () => {});
      socket.resume(); // read what the server sends, so its FIN is seen
      socket.once('connect', () => {
        if (options.firstBytes !== undefined) socket.write(options.firstBytes);
        resolve();
      });
      socket.once('close', () => {
        sockets.delete(socket);
        resolve();
        if (stopped) return;
        closedByServer++;
        // Reopened after a turn of the event loop, not at once, so a flood cannot spin on itself.
        if (options.reopen ?? true) setTimeout(() => void open(i), 5).unref();
      });
    });
  await Promise.all(Array.from({ length: options.count }, (_, i) => open(i)));
  return {
    open: () => sockets.size,
    closedByServer: () => closedByServer,
    stop: () => {
      stopped = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}
