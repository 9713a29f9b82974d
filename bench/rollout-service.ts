/**
 * `bench rollout-service` (issue 38): the rollout service's acceptance run. 256 BabyAI episodes at
 * concurrency 64, token-exact, against a scripted vLLM-like endpoint (bench/token-completions-
 * server.ts), on a pool of 2 env servers (child processes) of which one is SIGKILLed when half the
 * episodes are in: every requested episode must come back exactly once (the aborted ones retried
 * on the live server). The same work is then run by `actorgym rollout --format tokens` (a child
 * process, the same kill at the same point), and the two are printed side by side. Both run in a
 * child process (`actorgym rollout-server` and `actorgym rollout`), so each shares the machine
 * with the endpoint and the env servers the same way.
 *
 * The tokenizer is the tiny test fixture's (a data folder; nothing of tests/ is imported).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from '../charts/text-table.ts';
import { median } from './stats.ts';
import { ServerFleet } from './chaos-fleet.ts';
import { startTokenCompletionsServer, type TokenCompletionsServer } from './token-completions-server.ts';

const BIN = fileURLToPath(new URL('../bin/actorgym.js', import.meta.url));
const TOKENIZER = fileURLToPath(new URL('../tests/fixtures/hf/serve-tiny', import.meta.url));

export interface RolloutServiceBenchOptions {
  readonly episodes?: number;
  readonly concurrency?: number;
  readonly horizon?: number;
  /** The endpoint's delay per completion (ms). */
  readonly delayMs?: number;
  /** Rounds of both runs. Default 2. */
  readonly rounds?: number;
}

interface RunResult {
  readonly name: string;
  readonly records: { readonly slot: string; readonly episodeId: string }[];
  readonly summary: { readonly slots: number; readonly episodes: number; readonly abortedAttempts: number; readonly abortReasons: Record<string, number>; readonly wallSeconds: number; readonly outcomes: Record<string, number> };
  /** From the request (service; its process already listening) or the spawn (rollout) to the last record. */
  readonly wallSeconds: number;
  readonly killedAt: number;
}

interface Work {
  readonly fleet: ServerFleet;
  readonly llm: TokenCompletionsServer;
  readonly episodes: number;
  readonly concurrency: number;
  readonly horizon: number;
}

/** `actorgym rollout-server` in a child process, as `rollout` runs in one: the endpoint (this process) is shared alike. */
function startServiceChild(work: Work): Promise<{ url: string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'rollout-server', '--port', '0', '--remote', work.fleet.urls.join(','), '--max-concurrency', `${work.concurrency}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const ready = /listening on (http:\/\/\S+)\n/.exec(out);
      if (ready) resolve({ url: ready[1] as string, stop: () => new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), child.kill('SIGTERM')))) });
    });
    child.once('exit', (code) => reject(new Error(`rollout-server exited with ${code} before it was ready: ${err.trim()}`)));
  });
}

/** The service: a POST of the whole batch, its stream read line by line; server 0 killed at half. */
async function serviceRun(work: Work): Promise<RunResult> {
  const service = await startServiceChild(work);
  try {
    const t0 = performance.now();
    const res = await fetch(`${service.url}/v1/rollouts`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ env: 'babyai', split: 'train', count: work.episodes, horizon: work.horizon, seed: 0, concurrency: work.concurrency, policy: { baseUrl: work.llm.baseURL, model: 'bench', tokenizer: `hf:${TOKENIZER}` } }),
    });
    const records: RunResult['records'] = [];
    let killedAt = -1;
    let last: Record<string, unknown> = {};
    let buffered = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines.filter((l) => l !== '')) {
        last = JSON.parse(line) as Record<string, unknown>;
        if (last.type !== 'record') continue;
        const record = last.record as { group: number; sample: number; episodeId: string };
        records.push({ slot: `${record.group}/${record.sample}`, episodeId: record.episodeId });
        if (records.length === Math.floor(work.episodes / 2) && killedAt < 0) {
          killedAt = records.length;
          void work.fleet.kill(0);
        }
      }
    }
    const wallSeconds = (performance.now() - t0) / 1000;
    if (last.type !== 'done') throw new Error(`the service's stream ended with ${JSON.stringify(last).slice(0, 400)}`);
    return { name: 'rollout-server (HTTP stream)', records, summary: last.summary as RunResult['summary'], wallSeconds, killedAt };
  } finally {
    await service.stop();
  }
}

/** `actorgym rollout --format tokens` on the same work; server 0 killed when its file holds half the records. */
async function cliRun(work: Work): Promise<RunResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-bench-rs-'));
  const out = path.join(dir, 'tokens.jsonl');
  try {
    const args = ['rollout', '--env', 'babyai', '--split', 'train', '--agent', 'openai:bench', '--tokenizer', `hf:${TOKENIZER}`, '--base-url', work.llm.baseURL,
      '--episodes', `${work.episodes}`, '--concurrency', `${work.concurrency}`, '--llm-concurrency', `${work.concurrency}`, '--horizon', `${work.horizon}`,
      '--seed', '0', '--max-retries', '2', '--remote', work.fleet.urls.join(','), '--format', 'tokens', '--out', out, '--json'];
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let killedAt = -1;
    const watch = setInterval(() => {
      const written = existsSync(out) ? readFileSync(out, 'utf8').split('\n').length - 1 : 0;
      if (written >= Math.floor(work.episodes / 2) && killedAt < 0) {
        killedAt = written;
        void work.fleet.kill(0);
      }
    }, 25);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(watch);
    const wallSeconds = (performance.now() - t0) / 1000;
    if (code !== 0) throw new Error(`actorgym rollout exited with ${code}: ${stderr.trim().slice(-800)}`);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((line) => {
      const record = JSON.parse(line) as { group: number; sample: number; episodeId: string };
      return { slot: `${record.group}/${record.sample}`, episodeId: record.episodeId };
    });
    return { name: 'rollout --format tokens (CLI)', records, summary: JSON.parse(stdout) as RunResult['summary'], wallSeconds, killedAt };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function row(run: RunResult, episodes: number): string[] {
  const unique = new Set(run.records.map((r) => r.slot)).size;
  const reasons = Object.entries(run.summary.abortReasons).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  return [
    run.name, `${run.records.length}/${episodes}`, `${run.records.length - unique}`, `${run.killedAt}`,
    `${run.summary.abortedAttempts} (${reasons})`, run.summary.wallSeconds.toFixed(2), run.wallSeconds.toFixed(2), (run.records.length / run.summary.wallSeconds).toFixed(1),
  ];
}

/** One round: both runs, in the order given (rounds alternate it, as this machine's load drifts). */
async function round(work: Work, serviceFirst: boolean): Promise<RunResult[]> {
  const runs: RunResult[] = [];
  for (const run of serviceFirst ? [serviceRun, cliRun] : [cliRun, serviceRun]) {
    runs.push(await run(work));
    await work.fleet.restart(0);
  }
  return serviceFirst ? runs : runs.reverse();
}

export async function runRolloutServiceBench(options: RolloutServiceBenchOptions = {}): Promise<void> {
  const llm = await startTokenCompletionsServer(TOKENIZER, options.delayMs ?? 20);
  const fleet = await ServerFleet.start(2);
  const work: Work = { fleet, llm, episodes: options.episodes ?? 256, concurrency: options.concurrency ?? 64, horizon: options.horizon ?? 8 };
  try {
    const results: RunResult[][] = [];
    for (let r = 0; r < (options.rounds ?? 2); r += 1) results.push(await round(work, r % 2 === 0));
    console.log(`${work.episodes} BabyAI train episodes, concurrency ${work.concurrency}, horizon ${work.horizon}, token-exact against a scripted endpoint (${options.delayMs ?? 20} ms per completion); 2 env servers, server 0 SIGKILLed when half the records were in (and restarted between runs); ${results.length} rounds, order alternated\n`);
    console.log(table([
      ['run', 'records', 'duplicates', 'killed at', 'aborted attempts (retried)', 'run s', 'wall s', 'episodes/s (run)'],
      ...results.flat().map((run) => row(run, work.episodes)),
    ]));
    const perSecond = (i: number) => median(results.map((runs) => (runs[i] as RunResult).records.length / (runs[i] as RunResult).summary.wallSeconds)).toFixed(1);
    console.log(`\nmedian episodes/s: rollout-server ${perSecond(0)} · rollout ${perSecond(1)}`);
    const bad = results.flat().filter((run) => new Set(run.records.map((r) => r.slot)).size !== work.episodes || run.records.length !== work.episodes);
    console.log(bad.length === 0 ? 'every requested episode came back exactly once in every run' : `NOT exactly once: ${bad.map((r) => r.name).join(', ')}`);
    console.log('run s = the rollout summary\'s wallSeconds; wall s = from the request (service; its process already listening) or the spawn (CLI: process start-up included) to the end.');
  } finally {
    await fleet.stop();
    await llm.close();
  }
}
