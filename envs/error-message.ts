/**
 * The text of anything thrown: an `Error`'s message, or the value as a string; an `EnvError`'s
 * code leads (`ENV_LOST: connection closed`). Every room that reports a caught error uses this one
 * function (envs/ is the ground floor, so every room may import it).
 */
import { EnvError } from './contract.ts';

export interface ErrorMessageOptions {
  /**
   * Lead with an `EnvError`'s code (default true). Off where the code travels beside the message
   * (AgentGym HTTP replies carry `code` as a field), so it is not said twice.
   */
  readonly withCode?: boolean;
}

export function errorMessage(error: unknown, options: ErrorMessageOptions = {}): string {
  if (error instanceof EnvError && options.withCode !== false) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
