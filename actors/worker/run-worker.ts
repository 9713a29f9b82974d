/**
 * A rollout worker (issue 37): connects to a learner server, builds its policy from the run the
 * learner describes, runs the assignments it is handed and streams the trajectory groups back.
 * Many workers serve one learner; each reconnects with backoff when the learner goes away and
 * pauses meanwhile (docs/distributed-training.md).
 *
 * @example
 * const stop = new AbortController();
 * await runWorker({ learner: 'ws://gpu-box:8200', name: 'w1', env: 'babyai', open: openWorkerPolicy(env), signal: stop.signal });
 */
import type { BackoffOptions } from '../../transport/remote/backoff.ts';
import { LearnerLink } from './learner-link.ts';
import { WorkerSession, type OpenWorkerPolicy, type WorkerLog, type WorkerStats } from './worker-session.ts';

export interface RunWorkerOptions {
  /** `ws://host:port` of the learner server. */
  readonly learner: string;
  readonly token?: string | undefined;
  /** The worker's name (the learner makes it unique and stamps it on the worker's groups). */
  readonly name: string;
  /** The env id this worker rolls out (must be the learner's). */
  readonly env: string;
  /** Builds the policy and producer from the learner's welcome (`openWorkerPolicy`). */
  readonly open: OpenWorkerPolicy;
  /** Stops the worker: the assignment under way is cancelled, the connection closed. */
  readonly signal?: AbortSignal;
  readonly backoff?: BackoffOptions;
  /** Ping interval to the learner (ms); 0 disables. Default 30 000. */
  readonly heartbeatMs?: number;
  readonly log?: WorkerLog;
  /** Called with the session's counters as they are (for progress lines and tests). */
  readonly onStats?: (stats: WorkerStats) => void;
}

/** Runs until `signal` aborts (resolves with the counters) or the learner refuses the worker for good (rejects). */
export async function runWorker(options: RunWorkerOptions): Promise<WorkerStats> {
  const link = new LearnerLink({
    url: options.learner, token: options.token, name: options.name, env: options.env,
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
  });
  const session = new WorkerSession(options.open, (reason) => link.drop(reason, true), options.log);
  options.onStats?.(session.stats);
  const stop = () => link.stop();
  if (options.signal?.aborted) return session.stats;
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await link.run(session);
    return session.stats;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await session.dispose();
  }
}
