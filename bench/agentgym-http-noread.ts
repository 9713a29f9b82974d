/**
 * AgentGym HTTP clients that pipeline requests and never read the replies (issue 40, finding 2):
 * NOREAD_SOCKETS sockets (16), each sending NOREAD_REQUESTS (2,000) `GET /observation` of a BabyAI
 * instance whose observations are NOREAD_BYTES (100,000) long, reading nothing, for 4 s. Printed:
 * the server's buffered-bytes stats, requests waiting, sockets closed, this process's peak RSS
 * (the server runs here; the attackers are raw paused sockets) and `/readyz`.
 *
 *   npx tsx bench/agentgym-http-noread.ts
 *   NOREAD_SERVER=/path/to/servers/agentgym-http/agentgym-http-server.ts npx tsx bench/agentgym-http-noread.ts   # another checkout's server
 */
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { getEnv } from '../envs/index.ts';
import { withBigObservations } from './big-observations.ts';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

async function post(url: string, body: unknown): Promise<{ id: number }> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return (await res.json()) as { id: number };
}

export async function runAgentGymHttpNoReadBench(): Promise<void> {
  const module = process.env.NOREAD_SERVER ?? new URL('../servers/agentgym-http/agentgym-http-server.ts', import.meta.url).href;
  const { startAgentGymHttpServer } = (await import(module.startsWith('/') ? pathToFileURL(module).href : module)) as typeof import('../servers/agentgym-http/agentgym-http-server.ts');
  const bytes = num('NOREAD_BYTES', 100_000);
  const server = await startAgentGymHttpServer({ port: 0, definition: withBigObservations(getEnv('babyai'), bytes) });
  const rssStart = process.memoryUsage().rss;
  const sockets: net.Socket[] = [];
  for (let i = 0; i < num('NOREAD_SOCKETS', 16); i++) {
    const { id } = await post(`${server.url}/create`, {});
    await post(`${server.url}/reset`, { id, data_idx: 0 });
    const socket = net.connect({ port: server.port, host: '127.0.0.1' });
    socket.on('error', () => {});
    socket.pause();
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /observation?id=${id} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(num('NOREAD_REQUESTS', 2_000)));
    sockets.push(socket);
  }
  let peak = rssStart;
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const started = performance.now();
  const ready = await fetch(`${server.url}/readyz`);
  const readyMs = performance.now() - started;
  const mib = (value: number) => Math.round(value / 2 ** 20);
  console.log(JSON.stringify({ observationBytes: bytes, sockets: sockets.length, rssStartMiB: mib(rssStart), rssPeakMiB: mib(peak), readyz: ready.status, readyzMs: Math.round(readyMs), stats: server.stats() }));
  for (const socket of sockets) socket.destroy();
  await server.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runAgentGymHttpNoReadBench();
