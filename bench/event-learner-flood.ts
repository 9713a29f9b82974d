/**
 * The frame budget of the event server (`--events-port`) and the learner server (issue 40,
 * finding 2): each in a child process (`rollout --events-port` waiting for subscribers, `learner`
 * waiting for workers), a token holder's 64 connections flooding frames from an attacker process
 * (bench/server-flood-attacker.ts, `spec` frames each server refuses with an error reply), with
 * the default `--frame-budget` and with `--frame-budget 0`. Printed: `/readyz` probed every
 * 250 ms with a 2 s deadline, honest clients (an observer's subscribe, a worker's hello) answered
 * within 5 s, the CPU the server used meanwhile (100% = one core), its peak RSS, and the frames
 * the flood sent.
 *
 *   npx tsx bench/event-learner-flood.ts      # FLOOD_CONNS (64), FLOOD_SECONDS (8)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { table } from '../charts/text-table.ts';
import { probeReadyz as probe, rssOf } from './server-probes.ts';
import { median, processCpuMicros } from './stats.ts';

const BIN = fileURLToPath(new URL('../bin/actorgym.js', import.meta.url));
const ATTACKER = fileURLToPath(new URL('./server-flood-attacker.ts', import.meta.url));
const TOKEN = 'bench-flood-token';
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--d-model', '16', '--heads', '2', '--ff', '32', '--layers', '1', '--context', '96', '--backend', 'wasm'];

type Kind = 'events' | 'learner';

/** The server's command line, and the stderr line that gives its URL. */
function command(kind: Kind, out: string): { args: string[]; ready: RegExp } {
  if (kind === 'events') {
    const args = ['rollout', '--env', 'babyai', '--episodes', '1', '--token', TOKEN, '--events-port', '0', '--wait-subscribers', '100000', '--wait-subscribers-timeout', '600000'];
    return { args, ready: /live events: (ws:\/\/\S+)\n/ };
  }
  return { args: ['learner', '--port', '0', '--worker-token', TOKEN, '--steps', '1', '--out', out, '--no-dashboard', ...TINY], ready: /listening for workers on (ws:\/\/\S+)\n/ };
}

function startServer(kind: Kind, extra: readonly string[], out: string): Promise<{ child: ChildProcess; url: string }> {
  const { args, ready } = command(kind, out);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const url = ready.exec(err)?.[1];
      if (url) resolve({ child, url });
    });
    child.once('exit', (code, signal) => {
      if (process.env.FLOOD_DEBUG) process.stderr.write(`${kind} server exited with ${code} ${signal}: ${err.slice(-300)}\n`);
      reject(new Error(`${kind} server exited with ${code} before it was ready: ${err}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGKILL'))));
}

/**
 * The first two honest workers stay connected to the end of a row: they hold the step's
 * assignments (a worker that left would have its groups handed out again, and the step fail after
 * five). Every other honest connection closes once answered, so they never fill `--max-connections`.
 */
const honestOpen: WebSocket[] = [];
const KEPT_WORKERS = 2;

/** An honest client's first exchange on a fresh connection (an observer's subscribe, a worker's hello): true when answered within 5 s. */
function honest(kind: Kind, url: string): Promise<boolean> {
  const first = kind === 'events' ? { op: 'subscribe' } : { op: 'hello', protocol: 1, worker: 'honest', env: 'babyai' };
  const answer = kind === 'events' ? 'subscribed' : 'welcome';
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
    const keep = kind === 'learner' && honestOpen.length < KEPT_WORKERS;
    if (keep) honestOpen.push(ws);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      if (!keep) ws.terminate();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 5_000);
    ws.on('error', () => done(false));
    ws.once('open', () => ws.send(JSON.stringify(first)));
    ws.on('message', (data, isBinary) => {
      if (!isBinary && (JSON.parse(data.toString()) as { op?: string }).op === answer) done(true);
    });
  });
}

async function floodRow(kind: Kind, budget: string, extra: readonly string[]): Promise<string[]> {
  const out = mkdtempSync(path.join(tmpdir(), 'actorgym-flood-'));
  const server = await startServer(kind, extra, path.join(out, 'run'));
  const attacker = spawn(process.execPath, ['--import', 'tsx', ATTACKER, server.url, TOKEN, 'flood', `${num('FLOOD_CONNS', 64)}`, '20000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  attacker.stdout?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  while (!said.includes('ready')) await new Promise((resolve) => setTimeout(resolve, 50));
  const latencies: (number | undefined)[] = [];
  const honestResults: boolean[] = [];
  const pid = server.child.pid as number;
  const cpuBefore = processCpuMicros(pid) ?? 0;
  const begun = performance.now();
  const end = begun + num('FLOOD_SECONDS', 8) * 1000;
  const probing = (async () => {
    while (performance.now() < end) {
      latencies.push(await probe(server.url));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  while (performance.now() < end) honestResults.push(await honest(kind, server.url));
  await probing;
  const cpuShare = ((processCpuMicros(pid) ?? 0) - cpuBefore) / 1000 / (performance.now() - begun);
  attacker.kill('SIGTERM');
  await new Promise((resolve) => attacker.once('exit', resolve));
  const frames = (JSON.parse(said.split('\n').find((line) => line.startsWith('{')) ?? '{"frames":0}') as { frames: number }).frames;
  const rss = rssOf(server.child.pid as number).hwm;
  for (const ws of honestOpen.splice(0)) ws.terminate();
  await stop(server.child);
  rmSync(out, { recursive: true, force: true });
  const answered = latencies.filter((ms): ms is number => ms !== undefined);
  return [
    kind === 'events' ? 'event server' : 'learner server', budget,
    `${answered.length} of ${latencies.length}`, `${answered.filter((ms) => ms <= 100).length} of ${latencies.length}`,
    answered.length > 0 ? `${median(answered).toFixed(1)} / ${Math.max(...answered).toFixed(1)}` : '-',
    `${honestResults.filter(Boolean).length} of ${honestResults.length}`, `${Math.round(cpuShare * 100)}%`, rss.toFixed(0), frames.toLocaleString('en-US'),
  ];
}

export async function runEventLearnerFloodBench(): Promise<void> {
  const rows: string[][] = [];
  for (const kind of ['events', 'learner'] as const) {
    rows.push(await floodRow(kind, 'default', []));
    rows.push(await floodRow(kind, 'off (0)', ['--frame-budget', '0']));
  }
  console.log(`A token holder's ${num('FLOOD_CONNS', 64)} connections flooding frames for ${num('FLOOD_SECONDS', 8)} s (/readyz every 250 ms, 2 s deadline):`);
  console.log(table([['server', '--frame-budget', '/readyz answered', '≤ 100 ms', 'readyz ms median / max', 'honest answered', 'server CPU', 'peak RSS MiB', 'frames sent'], ...rows]));
}

if (import.meta.url === `file://${process.argv[1]}`) await runEventLearnerFloodBench();
