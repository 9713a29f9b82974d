/**
 * One HTTP request on a fresh connection, with any headers (browsers' `Origin` included) and a
 * source address, for the AgentGym HTTP server's attack tests. Never throws on a status.
 */
import http from 'node:http';

export interface RawReply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly json: unknown;
}

export interface RawRequest {
  readonly method?: 'GET' | 'POST' | 'OPTIONS';
  readonly body?: unknown;
  readonly headers?: http.OutgoingHttpHeaders;
  /** Source address, e.g. `127.0.0.2` to look like a second machine on loopback. */
  readonly localAddress?: string;
}

export function request(url: string, options: RawRequest = {}): Promise<RawReply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const headers: http.OutgoingHttpHeaders = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, ...(options.localAddress ? { localAddress: options.localAddress } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = text;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const basic = (token: string, login = 'actorgym') => ({ authorization: `Basic ${Buffer.from(`${login}:${token}`).toString('base64')}` });
