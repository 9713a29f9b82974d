import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { startEnvServer } from '../../servers/env-server/env-server.ts';
import { startEventServer } from '../../servers/event-server/event-server.ts';
import { remoteEnvDefinition } from '../../transport/remote/ws-client.ts';
import type { RunEvent } from '../../streams/events.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { counterDefinition, playWithOracle, resolver } from './fake-env.ts';
import { until } from './raw-peer.ts';

const WATCHED = ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'];
const count = () => {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) if (WATCHED.includes(name)) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
};

describe('no timers or sockets left behind', () => {
  it('releases every socket and timer once servers and clients are closed', async () => {
    const before = count();
    const env = await startEnvServer({ port: 0, resolveEnv: resolver(counterDefinition()), heartbeatMs: 50, callTimeoutMs: 50 });
    const source = new Subject<RunEvent>();
    const events = await startEventServer({ port: 0, events: source, heartbeatMs: 50 });
    const observed = lastValueFrom(observeRun(events.url).pipe(toArray()));
    const remote = await remoteEnvDefinition(env.url, 'counter', { heartbeatMs: 50, callTimeoutMs: 1_000 });
    await until(() => events.stats().subscribers === 1);
    const instance = remote.make();
    await playWithOracle(remote, instance, 'count-3');
    await expect(instance.step('sleep:5000')).rejects.toMatchObject({ code: 'ENV_NOT_RESET' });
    await instance.reset({ taskId: 'count-3' });
    await expect(instance.step('sleep:5000')).rejects.toMatchObject({ code: 'ENV_TIMEOUT' }); // the server's deadline
    source.next({ type: 'agent.acted', t: 0, episodeId: 'e', turn: 0, action: 'inc' });
    await new Promise((resolve) => setTimeout(resolve, 150)); // let heartbeats run
    source.complete();
    expect(await observed).toHaveLength(1);
    await remote.close();
    await events.close();
    await env.close();
    await new Promise((resolve) => setTimeout(resolve, 20)); // closed handles leave the list a tick later
    const after = count();
    expect(after.TCPSocketWrap ?? 0).toBe(before.TCPSocketWrap ?? 0);
    expect(after.TCPServerWrap ?? 0).toBe(before.TCPServerWrap ?? 0);
    // vitest keeps timers of its own (the test timeout), which may come and go; ours must be gone.
    expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
  });

  it('lets a client process exit on its own: an idle connection does not hold it open', async () => {
    const server = await startEnvServer({ port: 0, resolveEnv: resolver(counterDefinition()) });
    const fakeEnv = fileURLToPath(new URL('./fake-env.ts', import.meta.url));
    const client = fileURLToPath(new URL('../../transport/remote/ws-client.ts', import.meta.url));
    // The script plays an episode and never closes its connection.
    const script = `
      import { remoteEnvDefinition } from ${JSON.stringify(client)};
      import { playWithOracle } from ${JSON.stringify(fakeEnv)};
      const remote = await remoteEnvDefinition(${JSON.stringify(server.url)}, 'counter');
      const results = await playWithOracle(remote, remote.make(), 'count-2');
      console.log(results.length);
    `;
    const started = Date.now();
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(output.trim()).toBe('3');
    expect(Date.now() - started).toBeLessThan(20_000);
    await until(() => server.stats().connections === 0);
    expect(server.stats().instances).toBe(0);
    await server.close();
  });
});
