/**
 * Issue 24, finding 8, through the real CLI: `rollout --events-port` started the run as soon as
 * the port listened, so an observer missed `run.started` and the first episodes. With
 * `--wait-subscribers N` the run waits for its observers; any subscriber also gets the run's
 * events so far from the replay log.
 */
import { spawn } from 'node:child_process';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { BIN, runCli } from './run-cli.ts';

/** Starts `actorgym ARGS`; `url` resolves with the event server's URL once it is printed. */
function startCli(args: readonly string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /live events: (ws:\S+)/.exec(stderr);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', () => reject(new Error(`exited before serving events: ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { url, exited };
}

describe('actorgym rollout --events-port (issue 24, finding 8)', () => {
  it('with --wait-subscribers 1, a subscriber connected after start gets run.started first, run.finished last, every episode.finished between', async () => {
    const cli = startCli(['rollout', '--env', 'babyai', '--episodes', '24', '--concurrency', '8', '--seed', '3', '--json', '--events-port', '0', '--wait-subscribers', '1', '--log-json']);
    const events: TrainingEvent[] = await lastValueFrom(observeRun(await cli.url).pipe(toArray()));
    const { code, stdout, stderr } = await cli.exited;
    expect(code).toBe(0);
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)?.type).toBe('run.finished');
    const slots = events.flatMap((event) => (event.type === 'episode.finished' ? [event.slot] : []));
    expect(slots.sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, slot) => slot));
    expect(events.filter((event) => event.type === 'run.started' || event.type === 'run.finished')).toHaveLength(2);
    expect(JSON.parse(stdout).episodes).toBe(24);
    expect(stderr).toMatch(/waiting for 1 subscriber to ws:\S+ before starting the run/);
    expect(stderr).toMatch(/1 of 1 subscriber subscribed/);
    // --log-json: one JSON line per connection event of the event server (issue 24, operable servers).
    const logged = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { server: string; event: string });
    expect(logged.filter((r) => r.server === 'events').map((r) => r.event)).toEqual(expect.arrayContaining(['connection.opened', 'connection.authenticated']));
  });

  it('starts the run anyway, with a warning, once --wait-subscribers-timeout passes without them', async () => {
    const { code, stdout, stderr } = await runCli(['rollout', '--env', 'babyai', '--episodes', '4', '--json', '--events-port', '0', '--wait-subscribers', '2', '--wait-subscribers-timeout', '100']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).episodes).toBe(4);
    expect(stderr).toMatch(/warning: 0 of 2 subscribers after 0\.1 s; starting the run anyway/);
  });

  it('refuses --wait-subscribers without --events-port', async () => {
    const { code, stderr } = await runCli(['rollout', '--env', 'babyai', '--episodes', '1', '--wait-subscribers', '1']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/actorgym: error: --wait-subscribers.* need --events-port/);
  });
});
