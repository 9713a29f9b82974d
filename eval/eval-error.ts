/** Errors of an evaluation directory, keyed by a literal code (the CLI prints `code: message`). */
export type EvalErrorCode =
  /** The directory holds an evaluation of another env, split, agent, n, task count, seed or horizon. */
  | 'EVAL_CONFIG_MISMATCH'
  /** A file of the directory cannot be read as an evaluation wrote it. */
  | 'EVAL_CORRUPT';

/** An evaluation that cannot run or resume, keyed by `code` (a changed option on resume, a corrupt results file). */
export class EvalError extends Error {
  override readonly name = 'EvalError';
  constructor(
    readonly code: EvalErrorCode,
    message: string,
  ) {
    super(message);
  }
}
