/**
 * A Hugging Face causal LM as an agent (issue 36): `HfPolicy` plays an env's conversation with a
 * kept KV cache per episode, `encodeEpisode` renders a conversation to the same ids for SFT,
 * `loadHfPolicy` loads a model folder (and a peft adapter) for `--agent hf:DIR`.
 */
export { ChatEpisode, endOfTurnId, type ReadHfReply } from './chat-episode.ts';
export { demoTurns, encodeEpisode, type ConversationTurn, type DemoLike, type EncodedEpisode } from './conversation.ts';
export { HfPolicy, type HfPolicyOptions } from './hf-policy.ts';
export { HfPolicyError, type HfPolicyErrorCode } from './hf-policy-error.ts';
export { hfPolicyName, loadHfPolicy, type HfPolicySpec, type LoadedHfPolicy, type LoadHfPolicyOptions } from './load-hf-policy.ts';
