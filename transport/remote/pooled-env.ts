/**
 * An `Env` of a server pool (ws-pool.ts). Each `reset` starts an episode on a live server: the
 * instance stays where it is while its server lives and the pool is balanced, and is re-created
 * on the least-loaded server otherwise (its server was lost, or it came back and is emptier).
 * Within an episode the instance never moves: a lost server fails `step` with ENV_LOST, and the
 * episode is aborted and retried upstream.
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepResult } from '../../envs/contract.ts';
import type { Placement } from './server-link.ts';
import type { EnvServerPool } from './ws-pool.ts';

export class PooledEnv implements Env {
  private placement: Placement | undefined;
  private env: Env | undefined;
  private closed = false;

  constructor(
    readonly spec: EnvSpec,
    private readonly envId: string,
    private readonly pool: EnvServerPool,
  ) {}

  /** The server this env's instance is on, while it has one. */
  get server(): string | undefined {
    return this.placement?.link.url;
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    if (this.closed) throw closedError();
    if (this.placement === undefined || this.env === undefined || this.pool.shouldMove(this.placement)) {
      await this.unplace();
      const placement = await this.pool.place();
      if (this.closed) {
        placement.release();
        throw closedError();
      }
      this.placement = placement;
      this.env = placement.connection.makeEnv(this.envId);
    }
    return this.watch(this.env.reset(options));
  }

  step(action: string): Promise<StepResult> {
    if (this.closed) return Promise.reject(closedError());
    if (this.env === undefined) return Promise.reject(new EnvError('ENV_NOT_RESET', 'reset the env before stepping it'));
    return this.watch(this.env.step(action));
  }

  /** A server that answers SERVER_DRAINING gets nothing new; the call still fails (ENV_LOST), and the episode is retried elsewhere. */
  private watch<T>(call: Promise<T>): Promise<T> {
    const placement = this.placement;
    return call.catch((error: unknown) => {
      if (placement !== undefined && error instanceof EnvError && error.message.startsWith('SERVER_DRAINING')) this.pool.draining(placement);
      throw error;
    });
  }

  /** The server-side oracle's next action for this env's instance. */
  oracleAction(): Promise<string> {
    if (this.closed) return Promise.reject(closedError());
    if (this.placement === undefined || this.env === undefined) return Promise.reject(new EnvError('ENV_NOT_RESET', 'reset the env before asking its oracle'));
    return this.placement.connection.oracle(this.env);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.unplace();
  }

  private async unplace(): Promise<void> {
    const { env, placement } = this;
    this.env = undefined;
    this.placement = undefined;
    // A suspect (maybe frozen) or lost server would hold the close for a whole call deadline.
    const answering = placement !== undefined && placement.alive && placement.link.state === 'live';
    placement?.release();
    // A failed close of the old instance must not fail the next episode; the server drops an
    // instance with its connection, or after its own call deadline, in any case.
    const closing = env?.close().catch(() => undefined);
    if (answering) await closing;
  }
}

function closedError(): EnvError {
  return new EnvError('ENV_CLOSED', 'the env was closed');
}
