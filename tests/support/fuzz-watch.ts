/**
 * What the fuzz tests (issue 24) watch besides the replies: crashes of the process the server
 * runs in, its memory, the env instances the server holds, and an honest client that keeps
 * playing real episodes while the fuzzer attacks.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Env, EnvDefinition } from '../../envs/contract.ts';

/** The fixed seed of both fuzz tests. */
export const FUZZ_SEED = 42;
/** Generous: the fuzzers' own garbage (megabyte bodies and frames, 60 k-character actions) churns the heap; a leak per frame, request or instance would exceed it. */
export const MAX_HEAP_GROWTH = 64 * 1024 * 1024;
export const MAX_RSS_GROWTH = 256 * 1024 * 1024;
/** Between the honest client's runs: it plays alongside the fuzzer without taking most of the one event loop they share. */
export const HONEST_PAUSE_MS = 200;

/** Records every 'uncaughtException' and 'unhandledRejection' of this process until `stop`. */
export function watchCrashes(): { readonly crashes: readonly string[]; stop(): void } {
  const crashes: string[] = [];
  const onException = (error: unknown) => crashes.push(`uncaughtException: ${String((error as Error)?.stack ?? error)}`);
  const onRejection = (reason: unknown) => crashes.push(`unhandledRejection: ${String((reason as Error)?.stack ?? reason)}`);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return {
    crashes,
    stop() {
      process.off('uncaughtException', onException);
      process.off('unhandledRejection', onRejection);
    },
  };
}

// vitest does not start workers with --expose-gc; V8 can expose it at run time.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (() => void) | undefined;

/** Resident set size and, after a full collection, the V8 heap in use (bytes). */
export function memoryNow(): { readonly rss: number; readonly heapUsed: number } {
  gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

/** `definition` whose `live()` tells how many of its envs are made and not closed yet. */
export function countingDefinition(definition: EnvDefinition): { readonly definition: EnvDefinition; live(): number } {
  let live = 0;
  const inner = new WeakMap<Env, Env>();
  const make = (): Env => {
    const env = definition.make();
    live++;
    let closed = false;
    const counted: Env = {
      spec: env.spec,
      reset: (options) => env.reset(options),
      step: (action) => env.step(action),
      close: async () => {
        if (!closed) {
          closed = true;
          live--;
        }
        await env.close();
      },
    };
    inner.set(counted, env);
    return counted;
  };
  const { oracle } = definition;
  const counting: EnvDefinition = { ...definition, make };
  // The oracle reads the env's own state: hand it the real env.
  return { definition: oracle ? { ...counting, oracle: (env) => oracle(inner.get(env) ?? env) } : counting, live: () => live };
}

/**
 * Runs `play` from now until `stop()`, with `pauseMs` between runs (an honest client's pace, so
 * that it shares the test's one event loop with the fuzzer instead of taking most of it); `stop()`
 * waits for the run in progress and returns every run's value. A run that throws ends the loop,
 * and `stop()` throws its error.
 */
export function keepPlaying<T>(play: () => Promise<T>, pauseMs: number): { stop(): Promise<T[]> } {
  let stopping = false;
  let wake: (() => void) | undefined;
  const runs: T[] = [];
  const loop = (async () => {
    for (;;) {
      runs.push(await play());
      if (stopping) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pauseMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stopping) return;
    }
  })();
  loop.catch(() => {}); // read by stop(); a failed run must not surface as an unhandled rejection first
  return {
    async stop() {
      stopping = true;
      wake?.();
      await loop;
      return runs;
    },
  };
}
