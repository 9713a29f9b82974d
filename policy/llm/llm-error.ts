import type { CallKey } from './chat-types.ts';

/** What an LLM call failed on: the `code` of an `LlmError`. */
export type LlmErrorCode =
  /** Refused, reset, 5xx, 429, 408: the endpoint stayed unreachable or overloaded through the retries. */
  | 'LLM_UNAVAILABLE'
  /** Every attempt ran past its deadline (`timeoutMs`). */
  | 'LLM_TIMEOUT'
  /** A 200 whose body is not a chat completion: malformed JSON, wrong content type, a cut stream, no choice. */
  | 'LLM_BAD_RESPONSE'
  /** A 4xx other than 408/429 (bad request, bad key, unknown model): not retried. */
  | 'LLM_REJECTED'
  /**
   * The endpoint said the prompt plus `max_tokens` does not fit the model's context (context-length.ts):
   * not retried as such; the policy tries once more with a trimmed history, then ends the episode `truncated`.
   */
  | 'LLM_CONTEXT_LENGTH'
  /** No attempt reached the endpoint (refused, DNS, reset before any answer) through a whole call's retries while no other call got an answer: the run stops. */
  | 'LLM_UNREACHABLE'
  /** Replay: the request differs from the recorded one (hash mismatch). */
  | 'LLM_REPLAY_MISMATCH'
  /** Replay: the recording has no entry for this episode and turn. */
  | 'LLM_REPLAY_MISSING'
  /** The client was closed while the call was in flight or waiting (a cancel, not an endpoint failure; never retried or recorded). */
  | 'LLM_CANCELLED';

export const LLM_ERROR_CODES: readonly LlmErrorCode[] = [
  'LLM_UNAVAILABLE',
  'LLM_TIMEOUT',
  'LLM_BAD_RESPONSE',
  'LLM_REJECTED',
  'LLM_CONTEXT_LENGTH',
  'LLM_UNREACHABLE',
  'LLM_REPLAY_MISMATCH',
  'LLM_REPLAY_MISSING',
  'LLM_CANCELLED',
];

/**
 * The one error the chat client throws. Its `code` says what failed; the message names the
 * episode and turn so a log line is enough to find the call in a recording. Messages are built
 * from the endpoint's words with the API key cut out, so no code path can print the key.
 */

export class LlmError extends Error {
  override readonly name = 'LlmError';
  readonly episodeId: string;
  readonly turn: number;

  /**
   * @param detail what went wrong, without the call's label (kept apart so a recording can
   *   rebuild the same error on replay).
   */
  constructor(
    readonly code: LlmErrorCode,
    readonly detail: string,
    key: CallKey,
    /** Failed attempts before the last one (0 when the first attempt was final). */
    readonly retries = 0,
  ) {
    super(`${code}: LLM call of episode ${key.episodeId} turn ${key.turn}: ${detail}`);
    this.episodeId = key.episodeId;
    this.turn = key.turn;
  }
}

/** `text` with every occurrence of each secret replaced, for messages that may echo a request. */
export function redact(text: string, ...secrets: readonly (string | undefined)[]): string {
  let out = text;
  // Longest first, so that `user:pass` goes whole before `pass` alone.
  for (const secret of [...secrets].sort((a, b) => (b?.length ?? 0) - (a?.length ?? 0))) {
    if (secret === undefined || secret === '') continue;
    out = out.split(secret).join('[redacted]');
  }
  return out;
}
