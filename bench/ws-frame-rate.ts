/**
 * Frames per second an honest client sends over one WebSocket connection (issue 24, finding 5:
 * the rate limit must be able to trigger on this machine): BabyAI, 64 concurrent episodes, the
 * random agent through the actor runtime and as a bare loop (the fastest honest client we
 * have), against `actorgym serve babyai --rate-limit 0` in a child process. The server counts
 * the frames it receives; its `/healthz` is read every 100 ms, so the table shows both the
 * sustained rate and the busiest 100 ms (what the bucket's burst must hold).
 *
 * A second table floods one connection with `spec` frames (sent without waiting for replies, for
 * `FLOOD_MS`) against a server with no limit and one with the default, to show the default
 * triggers here: refused frames and the close code.
 *
 * Run: `npx tsx bench/ws-frame-rate.ts [RUNS] [ENV]` (default 5, babyai; SERVE_ARGS: extra `serve` flags, e.g.
 * `--frames-per-turn all`). docs/protocol.md#rate-limit has the figures and
 * the default derived from them (`RATE_LIMIT`, transport/wire/limits.ts).
 */
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import { createRolloutSystem } from '../actors/rollout-system.ts';
import type { EnvDefinition } from '../envs/contract.ts';
import { getEnv } from '../envs/index.ts';
import { remoteEnvDefinition } from '../transport/remote/ws-client.ts';
import { table } from '../charts/text-table.ts';
import { bareRollout } from './bare-rollout.ts';
import { median, startChildServer } from './stats.ts';

const CONCURRENCY = 64;
const EPISODES = 2048;
const SAMPLE_MS = 100;

interface FrameRun {
  /** Frames the server received per second over the whole run. */
  readonly sustained: number;
  /** Frames in the busiest `SAMPLE_MS` window, scaled to per second. */
  readonly peak: number;
  readonly busiestWindow: number;
}

async function framesSoFar(healthUrl: string): Promise<number> {
  const response = await fetch(healthUrl);
  const body = (await response.json()) as { frames?: number };
  if (typeof body.frames !== 'number') throw new Error(`${healthUrl} reports no frame count`);
  return body.frames;
}

async function measure(healthUrl: string, play: () => Promise<unknown>): Promise<FrameRun> {
  const start = performance.now();
  const first = await framesSoFar(healthUrl);
  let last = first;
  let busiest = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      const now = await framesSoFar(healthUrl);
      busiest = Math.max(busiest, now - last);
      last = now;
    }
  })();
  await play();
  sampling = false;
  await sampler;
  const total = (await framesSoFar(healthUrl)) - first;
  const seconds = (performance.now() - start) / 1000;
  return { sustained: total / seconds, peak: (busiest * 1000) / SAMPLE_MS, busiestWindow: busiest };
}

const FLOOD_MS = 2_000;

interface FloodRun {
  readonly framesPerSecond: number;
  readonly refused: number;
  readonly closeCode: number | undefined;
}

/** One connection sending `spec` frames as fast as its socket takes them (1 MiB queued at most). */
async function flood(url: string, healthUrl: string, envId: string): Promise<FloodRun> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.on('error', () => {});
  await new Promise((resolve) => ws.once('open', resolve));
  let refused = 0;
  let closeCode: number | undefined;
  ws.on('message', (data) => {
    if (data.toString().includes('"RATE_LIMITED"')) refused++;
  });
  ws.once('close', (code) => (closeCode = code));
  const frame = JSON.stringify({ id: 1, op: 'spec', env: envId });
  const first = await framesSoFar(healthUrl);
  const start = performance.now();
  while (performance.now() - start < FLOOD_MS && closeCode === undefined) {
    for (let i = 0; i < 1_000 && ws.readyState === WebSocket.OPEN; i++) ws.send(frame);
    while (ws.bufferedAmount > 1 << 20 && ws.readyState === WebSocket.OPEN) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const seconds = (performance.now() - start) / 1000;
  const received = (await framesSoFar(healthUrl)) - first;
  ws.terminate();
  return { framesPerSecond: received / seconds, refused, closeCode };
}

export async function runWsFrameRateBench(runs = 5, envId = 'babyai'): Promise<void> {
  const definition = getEnv(envId);
  const server = await startChildServer([envId, '--port', '0', '--rate-limit', '0', ...(process.env.SERVE_ARGS ?? '').split(' ').filter(Boolean)]);
  try {
    const url = server.urls[0] as string;
    const healthUrl = `${url.replace(/^ws:/, 'http:')}/healthz`;
    const clients: { name: string; play: (env: EnvDefinition) => Promise<unknown> }[] = [
      {
        name: 'actor runtime, random agent',
        play: (env) => createRolloutSystem({ env, agent: 'random', split: 'train', episodes: EPISODES, concurrency: CONCURRENCY, seed: 1 }).run(),
      },
      {
        name: 'bare loop, random agent',
        play: (env) => bareRollout(env, { split: 'train', episodes: EPISODES, concurrency: CONCURRENCY, seed: 1, horizon: definition.spec.defaultHorizon }),
      },
    ];
    const rows: string[][] = [];
    for (const client of clients) {
      const remote = await remoteEnvDefinition(url, envId);
      try {
        for (let i = 0; i < 2; i++) await client.play(remote); // warm-up, both sides
        const results: FrameRun[] = [];
        for (let i = 0; i < runs; i++) results.push(await measure(healthUrl, () => client.play(remote)));
        const sustained = results.map((r) => r.sustained);
        const peak = results.map((r) => r.peak);
        rows.push([
          client.name,
          median(sustained).toFixed(0),
          Math.max(...sustained).toFixed(0),
          median(peak).toFixed(0),
          Math.max(...peak).toFixed(0),
          Math.max(...results.map((r) => r.busiestWindow)).toFixed(0),
        ]);
      } finally {
        await (remote as { close?: () => Promise<void> }).close?.();
      }
    }
    console.log(
      `${envId}, train split, ${CONCURRENCY} concurrent episodes over one connection, ${EPISODES} episodes a run, ` +
        `${runs} runs after two warm-up runs; server: actorgym serve ${envId} --rate-limit 0${process.env.SERVE_ARGS ? ` ${process.env.SERVE_ARGS}` : ''} (child process); ` +
        `frames counted by the server, /healthz read every ${SAMPLE_MS} ms\n`,
    );
    console.log(
      table([
        ['client', 'frames/s median', 'frames/s max', `peak ${SAMPLE_MS} ms, per s, median`, 'peak per s, max', `most frames in ${SAMPLE_MS} ms`],
        ...rows,
      ]),
    );
    const floods: string[][] = [['no limit (--rate-limit 0)', ...floodRow(await flood(url, healthUrl, envId))]];
    const limited = await startChildServer([envId, '--port', '0']);
    try {
      const limitedUrl = limited.urls[0] as string;
      floods.push(['default limit', ...floodRow(await flood(limitedUrl, `${limitedUrl.replace(/^ws:/, 'http:')}/healthz`, envId))]);
    } finally {
      await limited.stop();
    }
    console.log(`\nOne connection flooding spec frames for ${FLOOD_MS / 1000} s (replies read, at most 1 MiB queued client-side)\n`);
    console.log(table([['server', 'frames/s received', 'RATE_LIMITED replies', 'close code'], ...floods]));
  } finally {
    await server.stop();
  }
}

function floodRow(run: FloodRun): string[] {
  return [run.framesPerSecond.toFixed(0), String(run.refused), run.closeCode === undefined ? 'open' : String(run.closeCode)];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runWsFrameRateBench(Number(process.argv[2] ?? 5), process.argv[3] ?? 'babyai');
}
