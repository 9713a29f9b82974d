/**
 * The client of token-exact turns: `TokenLlmPolicy`'s calls through the same retry loop,
 * concurrency limit and accounting as the chat client (endpoint-caller.ts), on `/v1/completions`
 * with the prompt as ids, or on `/v1/chat/completions` for a chat-only server.
 */
import type { ChatClientOptions } from './chat-client.ts';
import type { TokenRoute } from './completion-attempt.ts';
import { createEndpointCaller } from './endpoint-caller.ts';
import type { TokenClient } from './token-llm-policy.ts';
import { UsageMeter } from './usage-meter.ts';

export type TokenClientOptions = Omit<ChatClientOptions, 'stream' | 'record' | 'replay'> & {
  /** Default `completions`. */
  readonly route?: TokenRoute;
};

export function createTokenClient(options: TokenClientOptions): TokenClient {
  const meter = new UsageMeter();
  const caller = createEndpointCaller(options, meter);
  const route = options.route ?? 'completions';
  return {
    complete: (request, key) =>
      caller.call(async (openai, timeoutMs) => (await import('./completion-attempt.ts')).attemptTokens(openai, route, request, timeoutMs), key),
    usage: () => meter.usage(),
    close: async () => undefined,
  };
}
