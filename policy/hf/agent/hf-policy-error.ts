/**
 * Errors of the Hugging Face agent (HfPolicy, loadHfPolicy), keyed by a literal code. Thrown from
 * `act`, they end the episodes of the batch `aborted` (infrastructure), never `failure`.
 */
export type HfPolicyErrorCode =
  /** The episode's next turn (its conversation plus a reply of up to maxNewTokens) would pass the context window. */
  | 'HF_POLICY_CONTEXT_FULL'
  /** The chat template neither extends the conversation the policy holds nor writes a reply's end token after a reply, so the next turn cannot be appended. */
  | 'HF_POLICY_TEMPLATE'
  /** A later turn of an episode the policy does not hold (never opened at turn 0, or released). */
  | 'HF_POLICY_UNKNOWN_EPISODE'
  /** `setModel` while episodes are open: their caches were computed by the old weights. */
  | 'HF_POLICY_EPISODES_OPEN'
  /** The tokenizer names no id that ends the assistant's turn. */
  | 'HF_POLICY_NO_STOP_ID'
  /** `--agent hf:DIR` names a folder that is not a model folder (the message names the missing file). */
  | 'HF_POLICY_NOT_A_MODEL';

export class HfPolicyError extends Error {
  override readonly name = 'HfPolicyError';

  constructor(
    readonly code: HfPolicyErrorCode,
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}
