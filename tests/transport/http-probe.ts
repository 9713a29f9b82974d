/** Plain HTTP and TCP probes of a WebSocket server: refused upgrades, health endpoints, idle sockets. */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';

/** Status and JSON body of an upgrade the server refuses; rejects if it is accepted. */
export function refusal(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.on('error', () => {});
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('upgrade was accepted'));
    });
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) });
        ws.terminate();
      });
    });
  });
}

/** Opens a WebSocket with the given headers; resolves once open (the caller closes it). */
export function accepted(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.on('error', () => {});
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_request, response) => {
      ws.terminate();
      reject(new Error(`upgrade refused with ${response.statusCode}`));
    });
  });
}

/** GET on the server's HTTP side (`ws://h:p` → `http://h:p/path`): status and parsed JSON body. */
export function getJson(wsUrl: string, path: string): Promise<{ status: number; body: any }> {
  const url = new URL(path, wsUrl.replace(/^ws:/, 'http:'));
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: body ? JSON.parse(body) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A TCP connection to the server's port that (unless told to write) sends nothing. `closed` flips when the server drops it. */
export interface IdleSocket {
  readonly socket: Socket;
  closed: boolean;
}

export async function openIdleSockets(port: number, count: number, firstBytes?: string): Promise<IdleSocket[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<IdleSocket>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          const idle: IdleSocket = { socket, closed: false };
          socket.on('error', () => {});
          socket.resume(); // discard what the server sends (a 408), so its FIN is seen
          socket.once('close', () => (idle.closed = true));
          socket.once('connect', () => {
            if (firstBytes !== undefined) socket.write(firstBytes);
            resolve(idle);
          });
          socket.once('error', reject);
        }),
    ),
  );
}
