/**
 * Errors of a decoding session, keyed by a literal code so a caller (the agent actor) can tell a
 * full context (end the episode as truncated) from a programming error (an unknown episode).
 */
export type SessionErrorCode =
  /** The episode's tokens would pass the context bound (max_position_embeddings or the window). */
  | 'SESSION_CONTEXT_FULL'
  /** The session's cached tokens over all episodes would pass `maxCachedTokens`. */
  | 'SESSION_CACHE_FULL'
  | 'SESSION_UNKNOWN_EPISODE'
  | 'SESSION_EPISODE_EXISTS'
  /** The episode is inside another decide call. */
  | 'SESSION_EPISODE_BUSY'
  | 'SESSION_BAD_REQUEST';

export class HfSessionError extends Error {
  override readonly name = 'HfSessionError';

  constructor(
    readonly code: SessionErrorCode,
    /** The episode at fault, when there is one. */
    readonly episodeId: string | undefined,
    detail: string,
  ) {
    super(episodeId === undefined ? detail : `episode ${episodeId}: ${detail}`);
  }
}
