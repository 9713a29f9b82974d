/** What `actorgym worker` does (its options are in worker.ts). */
import { hostname } from 'node:os';
import { runWorker } from '../../actors/worker/run-worker.ts';
import { openWorkerPolicy } from '../../actors/worker/worker-policy.ts';
import { createOpsLog } from '../../servers/listener/ops-log.ts';
import { closeRemote } from '../close-remote.ts';
import { resolveCommandEnv } from '../remote-options.ts';
import type { WorkerCliOptions } from './worker.ts';

/** Text lines for the worker events a person running it wants to see. */
const TEXT: Readonly<Record<string, (f: Readonly<Record<string, unknown>>) => string>> = {
  'learner.welcome': (f) => `welcomed as ${String(f.worker)}, policy version ${String(f.version)}`,
  'version.applied': (f) => `sampling with version ${String(f.version)}`,
  'learner.lost': () => 'learner connection lost; reconnecting',
  'learner.draining': (f) => `learner draining: ${String(f.reason)}`,
  'learner.error': (f) => `learner refused a frame: ${String(f.code)} ${String(f.message)}`,
  'frame.bad': (f) => `unreadable frame from the learner: ${String(f.message)}`,
};

export async function runWorkerCommand(options: WorkerCliOptions): Promise<void> {
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const env = await resolveCommandEnv(options.env, options, options.envToken ?? token, options.envTimeout);
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const json = createOpsLog({ server: 'worker', enabled: options.logJson === true });
  const log = options.logJson === true ? json : (event: string, fields: Readonly<Record<string, unknown>> = {}) => {
    const text = TEXT[event];
    if (text) process.stderr.write(`actorgym worker: ${text(fields)}\n`);
  };
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // The ready line is what scripts and tests wait for; keep its shape.
  process.stdout.write(`actorgym worker: ${name} (${env.spec.id}) connecting to ${options.learner}\n`);
  try {
    const stats = await runWorker({
      learner: options.learner, token, name, env: env.spec.id, signal: stop.signal, log,
      open: openWorkerPolicy({
        env, backend: options.backend,
        ...(options.policy !== undefined ? { hfModel: options.policy.slice(3) } : {}),
        ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
        collect: { envTimeoutMs: options.envTimeout, maxLostRetries: options.maxLostRetries },
      }),
    });
    process.stdout.write(`actorgym worker: stopped after ${stats.assignments} assignment(s), ${stats.groups} group(s), ${stats.connects} connection(s)\n`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await closeRemote(env);
  }
}
