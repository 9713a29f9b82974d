/**
 * Binds an HTTP server and resolves once it listens, or rejects with the bind error (a taken
 * port, a bad host). After listening, the only server errors are failed accepts (e.g. out of file
 * descriptors): that connection is lost and the server keeps serving, so they are ignored.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', () => undefined);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
