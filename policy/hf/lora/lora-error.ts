/**
 * Errors of creating, attaching and exporting LoRA adapters, keyed by a literal code and naming
 * the option or path at fault. (Reading a peft adapter folder reports HfModelError, which names
 * the file and field like every other model-folder error.)
 */
export type LoraErrorCode =
  /** An option out of range (rank, alpha, target module). */
  | 'LORA_CONFIG_INVALID'
  /** A valid LoRA option this implementation does not support (dropout > 0). */
  | 'LORA_UNSUPPORTED'
  /** The adapters were made for a model of another shape. */
  | 'LORA_MODEL_MISMATCH'
  /** Export refused: the output folder exists and overwrite was not asked for. */
  | 'LORA_OUT_EXISTS'
  /** Export refused: an adapter weight is NaN or infinite. */
  | 'LORA_NON_FINITE';

export class LoraError extends Error {
  override readonly name = 'LoraError';

  constructor(
    readonly code: LoraErrorCode,
    /** The option, tensor or path at fault. */
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}
