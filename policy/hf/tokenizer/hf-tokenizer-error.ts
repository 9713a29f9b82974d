/**
 * The one error a Hugging Face tokenizer folder raises. Its `code` says what failed; the message
 * names the file (and the field, where one is at fault) so the user knows what to fix.
 */
export type HfTokenizerErrorCode =
  /** A file the tokenizer needs is not in the folder (tokenizer.json). */
  | 'HF_TOKENIZER_FILE_MISSING'
  /** A file is not JSON, or a field has the wrong shape (the message names file and field). */
  | 'HF_TOKENIZER_CONFIG_INVALID'
  /** The tokenizer's largest id does not fit the model's embedding (config.json vocab_size). */
  | 'HF_TOKENIZER_VOCAB_MISMATCH'
  /** Neither chat_template.jinja nor tokenizer_config.json's chat_template holds a template. */
  | 'HF_CHAT_TEMPLATE_MISSING'
  /** The template failed while rendering (a syntax error, or the template's raise_exception). */
  | 'HF_CHAT_TEMPLATE_RENDER';

export class HfTokenizerError extends Error {
  override readonly name = 'HfTokenizerError';
  constructor(
    readonly code: HfTokenizerErrorCode,
    message: string,
    /** The file at fault, as a path. */
    readonly file: string,
    /** The field at fault, dotted (`eos_token_id`, `model.vocab`), when one is. */
    readonly field?: string,
  ) {
    super(`${code}: ${message}`);
  }
}
