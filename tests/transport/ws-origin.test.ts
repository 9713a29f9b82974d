/**
 * Issue 24, finding 4: a page on any site could open env instances and read live events from a
 * server on the user's machine. Browser upgrades from a foreign Origin are now refused with 403
 * before a WebSocket exists; programs (no Origin), the server's own loopback pages and origins
 * on the allow-list pass.
 */
import { EMPTY } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { connectEnvServer } from '../../transport/remote/ws-client.ts';
import { counterDefinition, resolver } from './fake-env.ts';
import { accepted, refusal } from './http-probe.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serve(options: { allowOrigins?: readonly string[] } = {}) {
  const counter = counterDefinition();
  const server = await startEnvServer({ port: 0, resolveEnv: resolver(counter), ...options });
  cleanup.push(() => server.close());
  return { server, counter };
}

describe('Origin checks on the WebSocket servers (issue 24, finding 4)', () => {
  it('refuses a foreign browser Origin with 403 FORBIDDEN_ORIGIN and creates nothing', async () => {
    const { server, counter } = await serve();
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', `http://127.0.0.1:${server.port + 1}`]) {
      expect(await refusal(server.url, { Origin: origin })).toEqual({
        status: 403,
        body: { error: { code: 'FORBIDDEN_ORIGIN', message: expect.stringContaining(origin) } },
      });
    }
    // A DNS-rebinding page: its Host names the attacker's domain, which resolves to 127.0.0.1.
    expect((await refusal(server.url, { Origin: `http://rebind.example:${server.port}`, Host: `rebind.example:${server.port}` })).status).toBe(403);
    expect(server.stats()).toMatchObject({ connections: 0, instances: 0 });
    expect(counter.live.size).toBe(0);
  });

  it('lets programs (no Origin) and the server’s own loopback pages through', async () => {
    const { server } = await serve();
    const program = await connectEnvServer(server.url);
    cleanup.push(() => program.close());
    expect((await program.spec('counter')).id).toBe('counter');
    for (const origin of [`http://127.0.0.1:${server.port}`, `http://localhost:${server.port}`]) {
      const ws = await accepted(server.url, { Origin: origin });
      ws.terminate();
    }
  });

  it('lets allow-listed origins through (--allow-origin), and any with *', async () => {
    const { server } = await serve({ allowOrigins: ['https://lab.example'] });
    (await accepted(server.url, { Origin: 'https://lab.example' })).terminate();
    expect((await refusal(server.url, { Origin: 'https://other.example' })).status).toBe(403);
    const { server: open } = await serve({ allowOrigins: ['*'] });
    (await accepted(open.url, { Origin: 'https://other.example' })).terminate();
  });

  it('guards the event server the same way (the listener is shared)', async () => {
    const events = await startEventServer({ port: 0, events: EMPTY });
    cleanup.push(() => events.close());
    expect((await refusal(events.url, { Origin: 'https://evil.example' })).status).toBe(403);
    (await accepted(events.url)).terminate();
  });
});
