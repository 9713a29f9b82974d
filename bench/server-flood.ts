/**
 * `bench server-flood` (issue 40, findings 1 and 2): `actorgym serve babyai` (WebSocket and
 * AgentGym HTTP, with a token) in a child process, under three attacks, printed as tables:
 *
 * 1. idle sockets that never authenticate (2,000, reopened as the server closes them), from one
 *    address and spread over 127.0.0.0/8: how many honest WebSocket episodes and HTTP request
 *    sequences finish, and whether a `rollout --remote` exits 0;
 * 2. a token holder's flood of frames over 64 connections, each within its rate limit (an
 *    attacker process): `/readyz` latency every 250 ms, and an honest client's episodes;
 * 3. 64 connections that never read their replies: the server's RSS against its 128 MiB
 *    buffered-bytes budget, and `/readyz` meanwhile.
 *
 * Sizes: FLOOD_IDLE (2000), FLOOD_CONNS (64), FLOOD_SECONDS (10), FLOOD_HONEST (40); FLOOD_REOPEN=1
 * reopens every idle socket 5 ms after the server closes it (a connection-rate flood) instead of
 * holding them open. Each attacker runs in its own process (bench/idle-flood-attacker.ts,
 * bench/server-flood-attacker.ts).
 * FLOOD_SERVE_ARGS: extra `serve` flags, e.g. `--frame-budget 30000`. FLOOD_ONLY: `idle`, `flood` or
 * `noread` runs that part alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { table } from '../charts/text-table.ts';
import { getEnv } from '../envs/index.ts';
import { connectEnvServer } from '../transport/remote/ws-client.ts';
import { probeReadyz as probe, rssOf } from './server-probes.ts';
import { median } from './stats.ts';

const BIN = fileURLToPath(new URL('../bin/actorgym.js', import.meta.url));
const ATTACKER = fileURLToPath(new URL('./server-flood-attacker.ts', import.meta.url));
const IDLE_ATTACKER = fileURLToPath(new URL('./idle-flood-attacker.ts', import.meta.url));
const TOKEN = 'bench-flood-token';
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

interface Served {
  readonly child: ChildProcess;
  readonly ws: string;
  readonly http: string;
}

function startServer(): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', 'babyai', '--port', '0', '--agentgym-http', '0', '--token', TOKEN, ...(process.env.FLOOD_SERVE_ARGS ?? '').split(' ').filter(Boolean)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ws = /listening on (ws:\/\/\S+)\n/.exec(out)?.[1];
      const http = /AgentGym HTTP protocol on (http:\/\/\S+)\n/.exec(out)?.[1];
      if (ws && http) resolve({ child, ws, http });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before it was ready`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM'))));
}

/** The frames the server has received so far (its /healthz counter). */
async function framesReceived(wsUrl: string): Promise<number> {
  const res = await fetch(`${wsUrl.replace('ws:', 'http:')}/healthz`, { signal: AbortSignal.timeout(10_000) });
  return ((await res.json()) as { frames: number }).frames;
}

/** One BabyAI episode of up to 5 steps over a fresh connection; true when every call answered. */
async function honestWsEpisode(url: string, seed: number): Promise<boolean> {
  const connection = await connectEnvServer(url, { token: TOKEN, connectTimeoutMs: 5_000, callTimeoutMs: 10_000 }).catch(() => undefined);
  if (connection === undefined) return false;
  try {
    await connection.spec('babyai');
    const env = connection.makeEnv('babyai');
    const task = getEnv('babyai').tasks('test')[seed % 20] as string;
    await env.reset({ taskId: task, seed });
    for (let i = 0; i < 5; i++) if ((await env.step('turn left')).terminated) break;
    await env.close();
    return true;
  } catch {
    return false;
  } finally {
    await connection.close().catch(() => {});
  }
}

/** create, reset, step, close on the AgentGym HTTP port; true when all four answered 200 without an error. */
async function honestHttpSequence(base: string): Promise<boolean> {
  const post = async (route: string, body: object) => {
    const res = await fetch(`${base}/${route}`, {
      method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5_000),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    });
    const json = (await res.json()) as { id?: number; error?: string };
    if (res.status !== 200 || (typeof json === 'object' && json !== null && 'error' in json)) throw new Error(`${route}: ${res.status}`);
    return json;
  };
  try {
    const { id } = await post('create', {});
    await post('reset', { id, data_idx: 0 });
    await post('step', { id, action: 'turn left' });
    await post('close', { id });
    return true;
  } catch (e) {
    if (process.env.FLOOD_DEBUG) console.error('http', (e as Error).message, ((e as Error).cause as { code?: string } | undefined)?.code);
    return false;
  }
}

/** `actorgym rollout --remote` against the server: its exit code. */
function rolloutExit(url: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'rollout', '--env', 'babyai', '--remote', url, '--token', TOKEN, '--episodes', '8', '--agent', 'random'], { stdio: 'ignore' });
    child.once('exit', (code) => resolve(code));
  });
}

/** Starts `script` (an attacker) in its own process with `args`; resolves once it printed `ready`. */
async function startAttacker(script: string, args: readonly string[]): Promise<{ stop(): Promise<Record<string, number>> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  while (!out.includes('ready\n')) {
    if (child.exitCode !== null) throw new Error(`attacker ${script} exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    async stop() {
      await stop(child);
      return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
    },
  };
}

async function idleRow(served: Served, from: 'one' | 'spread', port: 'ws' | 'http'): Promise<string[]> {
  const count = num('FLOOD_IDLE', 2_000);
  const honest = num('FLOOD_HONEST', 40);
  const target = new URL(port === 'ws' ? served.ws : served.http);
  const flood = await startAttacker(IDLE_ATTACKER, [target.port, `${count}`, from, process.env.FLOOD_REOPEN === '1' ? 'reopen' : 'hold']);
  let finished = 0;
  const started = performance.now();
  for (let i = 0; i < honest; i++) if (await (port === 'ws' ? honestWsEpisode(served.ws, i) : honestHttpSequence(served.http))) finished++;
  const seconds = (performance.now() - started) / 1000;
  const rollout = port === 'ws' ? `exit ${await rolloutExit(served.ws)}` : '';
  const { closedByServer = 0 } = await flood.stop();
  return [port === 'ws' ? 'WebSocket' : 'AgentGym HTTP', from === 'one' ? '127.0.0.1' : '127.0.0.0/8', `${count}`, `${closedByServer}`, `${finished} of ${honest}`, seconds.toFixed(1), rollout];
}

/** Runs `mode` from an attacker process for FLOOD_SECONDS, probing /readyz and (flood) playing honest episodes meanwhile. */
async function attackRow(served: Served, mode: 'flood' | 'noread'): Promise<string[]> {
  const conns = num('FLOOD_CONNS', 64);
  const seconds = num('FLOOD_SECONDS', 10);
  const pid = served.child.pid as number;
  const before = rssOf(pid);
  const framesBefore = await framesReceived(served.ws);
  const attacker = await startAttacker(ATTACKER, [served.ws, TOKEN, mode, `${conns}`, mode === 'flood' ? '20000' : '5000']);
  const latencies: (number | undefined)[] = [];
  let peakRss = before.rss;
  let episodes = 0;
  let honestOk = 0;
  const until = performance.now() + seconds * 1000;
  const playing = (async () => {
    while (mode === 'flood' && performance.now() < until) {
      episodes++;
      if (await honestWsEpisode(served.ws, episodes)) honestOk++;
    }
  })();
  while (performance.now() < until) {
    latencies.push(await probe(served.ws));
    peakRss = Math.max(peakRss, rssOf(pid).rss);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await playing;
  const after = rssOf(pid);
  const { frames } = await attacker.stop();
  const received = (await framesReceived(served.ws)) - framesBefore;
  const answered = latencies.filter((ms): ms is number => ms !== undefined);
  return [
    mode === 'flood' ? `${conns} connections flooding frames` : `${conns} connections never reading`,
    `${answered.filter((ms) => ms <= 100).length} of ${latencies.length}`,
    answered.length > 0 ? `${median(answered).toFixed(1)} / ${Math.max(...answered).toFixed(1)}` : 'none answered',
    mode === 'flood' ? `${honestOk} of ${episodes}` : '',
    `${before.rss.toFixed(0)} → ${peakRss.toFixed(0)} (peak ${after.hwm.toFixed(0)})`,
    frames?.toLocaleString('en') ?? '',
    Math.round(received / seconds).toLocaleString('en'),
  ];
}

export async function runServerFloodBench(): Promise<void> {
  const served = await startServer();
  try {
    const only = process.env.FLOOD_ONLY;
    if (only === undefined || only === 'idle') {
      const idle: string[][] = [];
      for (const port of ['ws', 'http'] as const) for (const from of ['one', 'spread'] as const) idle.push(await idleRow(served, from, port));
      console.log(`\nIdle sockets that never authenticate (${process.env.FLOOD_REOPEN === '1' ? 'reopened as the server closes them' : 'held open'}), honest clients meanwhile:`);
      console.log(table([['port', 'idle from', 'idle sockets', 'closed by server', 'honest finished', 'honest s', 'rollout --remote'], ...idle]));
    }
    if (only === 'idle') return;
    const attacks = only === 'flood' || only === 'noread' ? [await attackRow(served, only)] : [await attackRow(served, 'flood'), await attackRow(served, 'noread')];
    console.log('\nA token holder, each connection within its rate limit (/readyz probed every 250 ms, 2 s deadline; budget --max-buffered-bytes 128 MiB):');
    console.log(table([['attack', '/readyz ≤ 100 ms', 'readyz ms median / max', 'honest episodes', 'server RSS MiB', 'frames sent', 'received / s'], ...attacks]));
  } finally {
    await stop(served.child);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runServerFloodBench();
