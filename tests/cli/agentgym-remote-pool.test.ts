/**
 * `--remote agentgym+http://a,agentgym+http://b` through the real `actorgym` entry point: one of
 * two AgentGym HTTP servers is killed mid-run; its episodes are retried on the other with their
 * slot's seed, so the run finishes with the in-process results.
 */
import { spawn } from 'node:child_process';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildServer } from '../../bench/stats.ts';
import { serveAgentGym as serveOn } from './serve-agentgym.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { BIN, runCli } from './run-cli.ts';

const servers: ChildServer[] = [];
const serveAgentGym = (env: string) => serveOn(env, servers);
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});


const played = (results: Array<{ slot: number; outcome: string; reward: number; turns: number }>) =>
  results.map(({ slot, outcome, reward, turns }) => ({ slot, outcome, reward, turns }));

describe('actorgym rollout --remote agentgym+http://a,agentgym+http://b', () => {
  it('finishes on a pool of two servers when one is killed mid-run, with the same results', async () => {
    const [a, b] = await Promise.all([serveAgentGym('sciworld'), serveAgentGym('sciworld')]);
    const base = ['rollout', '--env', 'sciworld', '--agent', 'random', '--episodes', '60', '--seed', '2', '--concurrency', '4', '--json'];
    const local = runCli(base);
    const child = spawn(process.execPath, [BIN, ...base, '--events-port', '0', '--server-wait', '2000', '--remote', `${a.remote},${b.remote}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const eventsUrl = await new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /live events: (ws:\S+)/.exec(stderr);
        if (match) resolve(match[1] as string);
      });
    });
    await firstValueFrom(observeRun(eventsUrl, { types: ['episode.finished'] }).pipe(filter((e) => e.type === 'episode.finished'), take(8), toArray()));
    b.server.child.kill('SIGKILL');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ slots: 60, episodes: 60 });
    expect(summary.outcomes.aborted).toBe(0);
    expect(stderr).toContain(`env server ${b.http}: lost`);
    const lostServer = summary.servers.find((s: { url: string }) => s.url === b.http);
    expect(lostServer.losses).toBe(1);
    // Aborted attempts were replayed on the live server with their slot's seed: the same episodes.
    expect(played(summary.results)).toEqual(played(JSON.parse((await local).stdout).results));
  }, 180_000); // child processes on a shared 2-core machine
});
