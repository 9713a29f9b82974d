import { EnvError } from '../envs/contract.ts';
import type { AbortReason } from '../machines/outcome.ts';

/** Maps a failed env call to why the episode is aborted; the agent is never blamed for it. */
export function envAbortReason(error: unknown): AbortReason {
  if (error instanceof EnvError) {
    if (error.code === 'ENV_LOST') return 'env_lost';
    if (error.code === 'ENV_TIMEOUT') return 'env_timeout';
    if (error.code === 'PROTOCOL_ERROR') return 'protocol_error';
  }
  return 'env_error';
}
