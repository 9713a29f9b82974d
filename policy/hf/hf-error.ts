/**
 * One error type for everything read from a Hugging Face model folder: it names the file and
 * the field (a config key, a tensor name, a header entry), so a user can find what to fix.
 */
export type HfErrorCode =
  | 'HF_CONFIG_INVALID'
  | 'HF_CONFIG_UNSUPPORTED'
  | 'HF_SAFETENSORS_HEADER'
  | 'HF_SAFETENSORS_DTYPE'
  | 'HF_TENSOR_MISSING'
  | 'HF_TENSOR_SHAPE'
  | 'HF_TENSOR_UNEXPECTED'
  | 'HF_INDEX_INVALID'
  | 'HF_OUT_OF_MEMORY';

export class HfModelError extends Error {
  override readonly name = 'HfModelError';

  constructor(
    readonly code: HfErrorCode,
    /** The file the problem is in (a path or a base name). */
    readonly file: string,
    /** The config key, tensor name or header entry at fault. */
    readonly field: string,
    detail: string,
  ) {
    super(`${file}: ${field}: ${detail}`);
  }
}
