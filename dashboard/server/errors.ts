/**
 * Errors of the dashboard, keyed by a literal `code` (like `EnvError`): the CLI prints
 * `CODE: message`, the HTTP API answers `{ error: { code, message } }` with `status`.
 */
export type DashboardErrorCode =
  /** `--run DIR`: nothing at DIR, or not a directory. */
  | 'RUN_DIR_MISSING'
  /** `--run DIR`: a directory without config.json, metrics.jsonl, trajectories/ or episodes.jsonl. */
  | 'RUN_DIR_INVALID'
  /** `--connect URL`: not a ws:// or wss:// URL. */
  | 'BAD_URL'
  /** The API names a run the dashboard does not have. */
  | 'RUN_UNKNOWN'
  /** The run has no trajectory files (a remote run, or a run without `--out`). */
  | 'NO_TRAJECTORIES'
  | 'STEP_UNKNOWN'
  | 'EPISODE_UNKNOWN'
  /** The episode has no picture of that turn (recorded by `eval --screenshots`). */
  | 'SCREENSHOT_UNKNOWN'
  /** A trajectory line that is not JSON or lacks taskId/steps. */
  | 'TRAJECTORY_INVALID'
  /** A file over the read limit (MAX_FILE_BYTES). */
  | 'FILE_TOO_LARGE'
  /** No such API path. */
  | 'NOT_FOUND'
  /** No port could be bound. */
  | 'LISTEN_FAILED'
  /** Asked to listen beyond loopback without a token. */
  | 'TOKEN_REQUIRED';

const STATUS: Readonly<Record<DashboardErrorCode, number>> = {
  RUN_DIR_MISSING: 404,
  RUN_DIR_INVALID: 400,
  BAD_URL: 400,
  RUN_UNKNOWN: 404,
  NO_TRAJECTORIES: 404,
  STEP_UNKNOWN: 404,
  EPISODE_UNKNOWN: 404,
  SCREENSHOT_UNKNOWN: 404,
  TRAJECTORY_INVALID: 422,
  FILE_TOO_LARGE: 413,
  NOT_FOUND: 404,
  LISTEN_FAILED: 500,
  TOKEN_REQUIRED: 400,
};

export class DashboardError extends Error {
  override readonly name = 'DashboardError';
  constructor(
    readonly code: DashboardErrorCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return STATUS[this.code];
  }
}
