/**
 * Error codes of the wire protocol and their mapping to and from the env contract's `EnvError`.
 * Errors cross the wire as values `{ code, message }`; see docs/protocol.md#error-codes.
 */
import { EnvError, type EnvErrorCode } from '../../envs/contract.ts';
import { errorMessage } from '../../envs/error-message.ts';

/**
 * The `code` of an error frame of the wire protocol (docs/protocol.md#error-codes); the env
 * contract's codes are among them.
 */
export type WireErrorCode =
  /** A text frame that is not JSON. */
  | 'BAD_JSON'
  /** JSON that is not a valid frame (missing or mistyped field), or a binary frame. */
  | 'BAD_FRAME'
  /** A frame whose `op` the server does not know. */
  | 'UNKNOWN_OP'
  /** Missing or wrong bearer token: the body of the HTTP 401 refusing the upgrade. */
  | 'UNAUTHORIZED'
  /** A browser page of an origin not on the server's allow-list: the body of the HTTP 403 refusing the upgrade. */
  | 'FORBIDDEN_ORIGIN'
  /** The connection's token bucket is empty; retry later. Nothing was executed. */
  | 'RATE_LIMITED'
  /** `create` over the per-connection or the server-wide instance limit. */
  | 'TOO_MANY_INSTANCES'
  /** The server is draining before it exits: it starts nothing new (`create`, `reset`), and a call still running at the drain deadline gets this reply. */
  | 'SERVER_DRAINING'
  /** No instance with this id on this connection (never created, closed, or dropped after a timeout). */
  | 'INSTANCE_UNKNOWN'
  /** A `reset`/`step`/`oracle` arrived while another one is running on the same instance. */
  | 'INSTANCE_BUSY'
  /** `oracle` on an env family that has no oracle. */
  | 'NO_ORACLE'
  /** Same meaning as the `EnvError` codes of envs/contract.ts. */
  | 'ENV_UNKNOWN'
  | 'TASK_UNKNOWN'
  | 'ENV_NOT_RESET'
  | 'ENV_CLOSED'
  /** The env call outlived the server's `callTimeoutMs`; the instance was dropped. */
  | 'ENV_TIMEOUT'
  /** The env threw something that is not an `EnvError`; the message is the exception's. */
  | 'ENV_INTERNAL';

/** An error as it crosses the wire: a code and a message. */
export interface WireError {
  readonly code: WireErrorCode;
  readonly message: string;
}

/** Every `WireErrorCode`, for validating a frame's code. */
export const WIRE_ERROR_CODES: readonly WireErrorCode[] = [
  'BAD_JSON', 'BAD_FRAME', 'UNKNOWN_OP', 'UNAUTHORIZED', 'FORBIDDEN_ORIGIN', 'RATE_LIMITED', 'TOO_MANY_INSTANCES', 'SERVER_DRAINING',
  'INSTANCE_UNKNOWN', 'INSTANCE_BUSY', 'NO_ORACLE', 'ENV_UNKNOWN', 'TASK_UNKNOWN',
  'ENV_NOT_RESET', 'ENV_CLOSED', 'ENV_TIMEOUT', 'ENV_INTERNAL',
];

/** Thrown inside the server's handlers to reply with a specific code; never crosses the wire as an exception. */
export class WireFault extends Error {
  override readonly name = 'WireFault';
  constructor(
    readonly code: WireErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const FROM_ENV: Readonly<Record<EnvErrorCode, WireErrorCode>> = {
  ENV_UNKNOWN: 'ENV_UNKNOWN',
  ENV_NOT_RESET: 'ENV_NOT_RESET',
  ENV_CLOSED: 'ENV_CLOSED',
  TASK_UNKNOWN: 'TASK_UNKNOWN',
  ENV_TIMEOUT: 'ENV_TIMEOUT',
  ENV_INTERNAL: 'ENV_INTERNAL',
  // A served env that is itself remote lost its upstream: to our peer that is an env failure.
  ENV_LOST: 'ENV_INTERNAL',
  PROTOCOL_ERROR: 'ENV_INTERNAL',
};

const TO_ENV: Readonly<Record<WireErrorCode, EnvErrorCode>> = {
  ENV_UNKNOWN: 'ENV_UNKNOWN',
  TASK_UNKNOWN: 'TASK_UNKNOWN',
  ENV_NOT_RESET: 'ENV_NOT_RESET',
  ENV_CLOSED: 'ENV_CLOSED',
  ENV_TIMEOUT: 'ENV_TIMEOUT',
  ENV_INTERNAL: 'ENV_INTERNAL',
  // The server no longer holds the instance: for the episode the env is gone.
  INSTANCE_UNKNOWN: 'ENV_LOST',
  // The server is going away; the episode can be played again on another one.
  SERVER_DRAINING: 'ENV_LOST',
  // The rest are the client's fault or the transport's, never the env's.
  BAD_JSON: 'PROTOCOL_ERROR',
  BAD_FRAME: 'PROTOCOL_ERROR',
  UNKNOWN_OP: 'PROTOCOL_ERROR',
  UNAUTHORIZED: 'PROTOCOL_ERROR',
  FORBIDDEN_ORIGIN: 'PROTOCOL_ERROR',
  RATE_LIMITED: 'PROTOCOL_ERROR',
  TOO_MANY_INSTANCES: 'PROTOCOL_ERROR',
  INSTANCE_BUSY: 'PROTOCOL_ERROR',
  NO_ORACLE: 'PROTOCOL_ERROR',
};

/** Any exception from a handler or an env, as a wire error value. */
export function toWireError(error: unknown): WireError {
  if (error instanceof WireFault) return { code: error.code, message: error.message };
  if (error instanceof EnvError) return { code: FROM_ENV[error.code], message: error.message };
  const message = errorMessage(error);
  return { code: 'ENV_INTERNAL', message };
}

/** A server error reply as the `EnvError` a remote env rejects with; the wire code stays in the message. */
export function toEnvError(error: WireError): EnvError {
  const code = TO_ENV[error.code];
  return new EnvError(code, code === error.code ? error.message : `${error.code}: ${error.message}`);
}
