/**
 * An `Env` whose instance lives on an env server, multiplexed with others over one connection.
 * The server-side instance is created lazily by the first `reset`, so making envs is free.
 */
import { EnvError, type Env, type EnvSpec, type ResetOptions, type ResetResult, type StepResult } from '../../envs/contract.ts';
import type { WsRpc } from './ws-rpc.ts';

export class WsRemoteEnv implements Env {
  private instance: string | undefined;
  private creating: Promise<string> | undefined;
  private closed = false;

  constructor(
    readonly spec: EnvSpec,
    private readonly envId: string,
    private readonly rpc: WsRpc,
  ) {}

  /** True when this env talks over `rpc` (so an oracle request can go on the same connection). */
  isOn(rpc: WsRpc): boolean {
    return this.rpc === rpc;
  }

  async reset(options: ResetOptions): Promise<ResetResult> {
    if (this.closed) throw closedError();
    const instance = this.instance ?? (await this.create());
    const { taskId, seed } = options;
    return this.rpc.call(seed === undefined ? { op: 'reset', instance, taskId } : { op: 'reset', instance, taskId, seed });
  }

  step(action: string): Promise<StepResult> {
    if (this.closed) return Promise.reject(closedError());
    if (this.instance === undefined) return Promise.reject(notResetError());
    return this.rpc.call({ op: 'step', instance: this.instance, action });
  }

  /** The server-side oracle's next action for this instance. */
  async oracleAction(): Promise<string> {
    if (this.closed) throw closedError();
    if (this.instance === undefined) throw notResetError();
    return (await this.rpc.call({ op: 'oracle', instance: this.instance })).action;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const instance = this.instance ?? (await this.creating?.catch(() => undefined));
    if (instance === undefined || this.rpc.closed) return; // a lost connection closed its instances
    try {
      await this.rpc.call({ op: 'close', instance });
    } catch (error) {
      // Lost or timed out: the server drops the instance with the connection or the call.
      if (!(error instanceof EnvError && (error.code === 'ENV_LOST' || error.code === 'ENV_TIMEOUT'))) throw error;
    }
  }

  private create(): Promise<string> {
    this.creating ??= this.rpc.call({ op: 'create', env: this.envId }).then(
      ({ instance }) => (this.instance = instance),
      (error: unknown) => {
        this.creating = undefined; // let a later reset try again
        throw error;
      },
    );
    return this.creating;
  }
}

function closedError(): EnvError {
  return new EnvError('ENV_CLOSED', 'the env was closed');
}

function notResetError(): EnvError {
  return new EnvError('ENV_NOT_RESET', 'reset the env before stepping it or asking its oracle');
}
