/** Per-episode multi-turn decoding with a kept KV cache (see hf-decoding-session.ts). */
export { HfDecodingSession, type DecideOptions, type Reply, type SessionOptions, type Transcript } from './hf-decoding-session.ts';
export { HfSessionError, type SessionErrorCode } from './session-error.ts';
