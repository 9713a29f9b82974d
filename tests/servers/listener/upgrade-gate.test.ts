/**
 * issue 35: the listener's upgrade checks became their own part (servers/listener/upgrade-gate.ts).
 * These pin the order the listener always had — draining (503), then a foreign Origin (403), then
 * the token (401) — on plain request objects, without a socket.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { UpgradeGate } from '../../../servers/listener/upgrade-gate.ts';

function request(headers: Record<string, string>, url = '/'): IncomingMessage {
  return { headers: { host: '127.0.0.1:8100', ...headers }, url } as unknown as IncomingMessage;
}

describe('UpgradeGate (issue 35)', () => {
  const gate = new UpgradeGate({ token: 'secret', allowOrigins: ['https://ok.example'] });

  it('admits a program with the right token, by header or query', () => {
    expect(gate.check(request({ authorization: 'Bearer secret' }), false)).toBeUndefined();
    expect(gate.check(request({}, '/?token=secret'), false)).toBeUndefined();
    expect(gate.check(request({ authorization: 'Bearer secret', origin: 'https://ok.example' }), false)).toBeUndefined();
  });

  it('refuses a missing or wrong token with 401 UNAUTHORIZED', () => {
    expect(gate.check(request({}), false)).toMatchObject({ status: 401, error: { code: 'UNAUTHORIZED' } });
    expect(gate.check(request({ authorization: 'Bearer nope' }), false)).toMatchObject({ status: 401 });
  });

  it('checks the Origin before the token, and draining before both', () => {
    const foreign = request({ origin: 'https://evil.example' });
    expect(gate.check(foreign, false)).toMatchObject({ status: 403, error: { code: 'FORBIDDEN_ORIGIN' } });
    expect(gate.check(foreign, true)).toMatchObject({ status: 503, error: { code: 'SERVER_DRAINING' } });
  });

  it('admits everyone without a token, and says how peers authenticated', () => {
    const open = new UpgradeGate({ token: undefined, allowOrigins: [] });
    expect(open.check(request({}), false)).toBeUndefined();
    expect(open.auth).toBe('none');
    expect(gate.auth).toBe('token');
  });
});
