/**
 * Binds an HTTP server to `port`, or, when it is taken, to the next `fallbacks` ports and then
 * to one the OS assigns: a second `actorgym train` on the same machine still gets a dashboard,
 * at a URL it prints. Port 0 means "any" from the start.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DashboardError } from './errors.ts';

export async function listenWithFallback(server: Server, port: number, host: string, fallbacks: number): Promise<number> {
  const candidates = port === 0 ? [0] : [...Array.from({ length: fallbacks + 1 }, (_, i) => port + i).filter((p) => p <= 65535), 0];
  let lastError: Error | undefined;
  for (const candidate of candidates) {
    try {
      await listenOnce(server, candidate, host);
      return (server.address() as AddressInfo).port;
    } catch (error) {
      lastError = error as Error;
      const code = (error as NodeJS.ErrnoException).code;
      // Only a taken port is worth another try; a bad host or a permission error is not.
      if (code !== 'EADDRINUSE') break;
    }
  }
  throw new DashboardError('LISTEN_FAILED', `the dashboard could not listen on ${host}:${port}: ${lastError?.message ?? 'unknown error'}`);
}

function listenOnce(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError).once('listening', onListening);
    server.listen(port, host);
  });
}
