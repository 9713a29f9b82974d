/**
 * The chaos harness of the learner/worker tests (tests/cli/learner-chaos*.test.ts): a `learner`
 * and its `worker` processes started for real, and a plan of SIGKILLs carried out against them
 * while the run trains:
 *
 * - a worker is killed as it starts an assignment (its "sampling with version" line) and a new
 *   worker process is started in its place; the learner hands the dead one's groups to another;
 * - the learner (checkpointing every step) is killed a random moment after a checkpoint and
 *   started again with `--resume DIR` on the same port; the surviving workers reconnect by
 *   themselves (backoff) and get the resumed version in their welcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { observeRun } from '../../transport/observe-run.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { BIN } from './run-cli.ts';

/** One chaos run: its kill plan (w = a worker, L = the learner; one kill per learner step at most) and its `learner` options. */
export interface ChaosSetup {
  readonly plan: string;
  readonly steps: number;
  readonly tasksPerStep: number;
  /** The `learner` options of a fresh run (`--steps`, `--seed`, `--checkpoint-every 1`, …), less `--out`. */
  readonly run: readonly string[];
}

/** Every process the harness started, killed at the end of the test file. */
export const live = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A CLI process whose stderr lines the test waits on, from a given line onwards. */
export class Proc {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stdout = '';
  readonly exited: Promise<number | null>;
  #wake: (() => void)[] = [];

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(this.child);
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.#wake.splice(0)) wake();
    });
    this.exited = new Promise((resolve) => this.child.on('close', (code) => {
      live.delete(this.child);
      for (const wake of this.#wake.splice(0)) wake();
      resolve(code);
    }));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first stderr line at index ≥ `from` that matches; undefined when the process ends or `timeoutMs` passes. */
  async waitLine(pattern: RegExp, from = 0, timeoutMs = 60_000): Promise<{ line: string; at: number } | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let at = from; at < this.lines.length; at++) if (pattern.test(this.lines[at]!)) return { line: this.lines[at]!, at };
      if (!this.running || Date.now() > deadline) return undefined;
      await new Promise<void>((resolve) => {
        this.#wake.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }

  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** One learner process and what its event stream said of its buffer. */
export interface LearnerLife {
  readonly proc: Proc;
  fromStep: number;
  last?: Extract<TrainingEvent, { type: 'buffer.changed' }>;
}

async function startLearner(setup: ChaosSetup, port: number, out: string, resume: boolean): Promise<LearnerLife> {
  const events = await freePort();
  const args = resume ? ['--resume', out] : ['--out', out, ...setup.run];
  const proc = new Proc(['learner', '--port', String(port), '--worker-log-json', '--events-port', String(events), '--wait-subscribers', '1', ...(resume ? ['--steps', String(setup.steps), '--json', '--no-dashboard', '--backend', 'wasm'] : []), ...args]);
  const life: LearnerLife = { proc, fromStep: -1 };
  // The events port comes up before the run starts (it waits for this subscriber); the replay gives the run from its start.
  await proc.waitLine(/^live events: ws:/, 0, 60_000);
  const subscribe = (): void => {
    observeRun(`ws://127.0.0.1:${events}`, { types: ['training.started', 'buffer.changed'] }).subscribe({
      next: (event) => {
        if (event.type === 'training.started') life.fromStep = event.fromStep;
        if (event.type === 'buffer.changed') life.last = event;
      },
      error: () => {}, // the learner was killed, or ended: the events before are what counts
    });
  };
  subscribe();
  const listening = await proc.waitLine(/listening for workers on ws:/, 0, 90_000);
  expect(listening, `the learner did not start:\n${proc.lines.join('\n')}`).toBeDefined();
  return life;
}

const startWorker = (url: string, name: string): Proc => new Proc(['worker', '--learner', url, '--name', name, '--backend', 'wasm']);

/**
 * Steps a killed learner trained that the next one trained again (killed before its checkpoint
 * of them was whole): from each life's last `buffer.changed` (a lower bound, should the last
 * event of a life not have left it before its kill).
 */
export function redoneSteps(lives: readonly LearnerLife[], tasksPerStep: number): number {
  let redone = 0;
  for (let i = 0; i + 1 < lives.length; i++) {
    const through = lives[i]!.fromStep + (lives[i]!.last?.trained ?? 0) / tasksPerStep;
    redone += Math.max(0, through - lives[i + 1]!.fromStep);
  }
  return redone;
}

/** A worker the learner welcomed (a fresh one still starting holds no work to lose), the longest-lived first. */
async function connectedWorker(workers: readonly Proc[]): Promise<Proc> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const ready = workers.find((w) => w.running && w.lines.some((l) => l.includes('welcomed as')));
    if (ready) return ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no worker was welcomed by the learner within 60 s');
}

export interface ChaosLog {
  workerKills: number;
  learnerKills: number;
  requeued: number;
  lives: LearnerLife[];
  /** Every worker process of the run, killed ones included. */
  workers: Proc[];
}

/** The last lines of the learner and of each live worker, for a failure's message. */
function tails(learner: LearnerLife, workers: readonly Proc[]): string {
  const tail = (proc: Proc, n: number) => proc.lines.slice(-n).map((line) => `  ${line.slice(0, 200)}`).join('\n');
  return [`learner (last 15 lines):\n${tail(learner.proc, 15)}`, ...workers.map((w, i) => `worker ${i} (last 4 lines, ${w.running ? 'running' : 'exited'}):\n${tail(w, 4)}`)].join('\n');
}

export async function runChaos(setup: ChaosSetup, port: number, out: string): Promise<{ log: ChaosLog; final: Proc; workers: Proc[] }> {
  const url = `ws://127.0.0.1:${port}`;
  const log: ChaosLog = { workerKills: 0, learnerKills: 0, requeued: 0, lives: [], workers: [] };
  let learner = await startLearner(setup, port, out, false);
  log.lives.push(learner);
  let seq = 0;
  const workers = [startWorker(url, `w${++seq}`), startWorker(url, `w${++seq}`)];
  log.workers.push(...workers);
  for (const kind of setup.plan) {
    // One kill per step at most: wait for the learner to train a step past the last kill.
    // 120 s: a step takes 1-3 s alone, but a loaded CI machine restarting workers (tsx start-up) is far slower.
    const stepped = await learner.proc.waitLine(/^step \d+\//, learner.proc.lines.length, 120_000);
    expect(stepped, `the learner stopped stepping before the plan was done (kills so far: ${log.workerKills} of workers, ${log.learnerKills} of the learner)\n${tails(learner, workers)}`).toBeDefined();
    expect(learner.proc.running, 'the run ended before the plan was done: give it more --steps').toBe(true);
    if (kind === 'w') {
      const victim = await connectedWorker(workers);
      const at = workers.indexOf(victim);
      // Kill it as it starts an assignment: the version it applies comes right before its step's groups.
      await victim.waitLine(/sampling with version/, victim.lines.length, 5_000);
      await victim.kill();
      log.workerKills++;
      workers[at] = startWorker(url, `w${++seq}`);
      log.workers.push(workers[at]!);
    } else {
      const saved = await learner.proc.waitLine(/^checkpoint \(step \d+\)/, learner.proc.lines.length, 30_000);
      expect(saved, 'no checkpoint after a step').toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 300)));
      await learner.proc.kill();
      log.learnerKills++;
      learner = await startLearner(setup, port, out, true);
      log.lives.push(learner);
      await learner.proc.waitLine(/^step \d+\//, 0, 60_000);
    }
  }
  await learner.proc.exited;
  for (const life of log.lives) log.requeued += life.proc.lines.filter((l) => l.includes('"event":"assignment.requeued"')).length;
  return { log, final: learner.proc, workers };
}

/**
 * What every chaos run must end with: the last learner exits 0 having trained every step, every
 * kill of the plan happened, and each resumed learner started from a checkpoint (step > 0).
 */
export async function expectPlanCompleted(setup: ChaosSetup, log: ChaosLog, final: Proc): Promise<void> {
  const code = await final.exited;
  expect(code, final.lines.join('\n')).toBe(0);
  expect(JSON.parse(final.stdout)).toMatchObject({ status: 'done', steps: setup.steps });
  expect(log.workerKills).toBe(setup.plan.split('w').length - 1);
  expect(log.learnerKills).toBe(setup.plan.split('L').length - 1);
  expect(log.lives.slice(1).every((life) => life.fromStep > 0)).toBe(true);
}
