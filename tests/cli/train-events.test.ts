/**
 * Issue 24, finding 8, on `train --events-port`: the training waits for `--wait-subscribers`, and
 * its subscriber gets the stream from `training.started` to its end, every step's rollout included.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { observeRun } from '../../transport/observe-run.ts';
import { BIN } from './run-cli.ts';

const TINY = ['--tasks-per-step', '2', '--group-size', '2', '--schedule', 'fixed:3', '--d-model', '32', '--heads', '2', '--ff', '64', '--layers', '1', '--context', '128', '--backend', 'wasm'];

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('actorgym train --events-port --wait-subscribers (issue 24, finding 8)', () => {
  it('holds the training for its subscriber, which gets training.started first and every step', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'train-events-'));
    const args = ['train', '--steps', '2', '--out', path.join(dir, 'run'), '--eval-episodes', '2', '--no-dashboard', '--json', ...TINY, '--events-port', '0', '--wait-subscribers', '1'];
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const url = new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /live events: (ws:\S+)/.exec(stderr);
        if (match) resolve(match[1] as string);
      });
      child.once('exit', () => reject(new Error(`exited before serving events: ${stderr}`)));
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const events: TrainingEvent[] = await lastValueFrom(observeRun(await url).pipe(toArray()));
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/waiting for 1 subscriber/);
    expect(events[0]?.type).toBe('training.started');
    expect(events.filter((event) => event.type === 'learner.stepped').map((event) => event.step)).toEqual([1, 2]);
    expect(events.filter((event) => event.type === 'episode.finished').length).toBeGreaterThanOrEqual(2 * 4);
    expect(events.some((event) => event.type === 'training.finished')).toBe(true);
  });
});
