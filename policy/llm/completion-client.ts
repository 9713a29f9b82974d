/**
 * The client of token-exact turns: `TokenLlmPolicy`'s calls through the same retry loop,
 * concurrency limit and accounting as the chat client (endpoint-caller.ts), on `/v1/completions`
 * with the prompt as ids, or on `/v1/chat/completions` for a chat-only server: named
 * (`route: 'chat'`), or found out when `/v1/completions` answers 404 and no route was named.
 */
import type { ChatClientOptions } from './chat-client.ts';
import type { TokenRoute } from './completion-attempt.ts';
import { createEndpointCaller } from './endpoint-caller.ts';
import type { TokenClient } from './token-llm-policy.ts';
import { UsageMeter } from './usage-meter.ts';

export type TokenClientOptions = Omit<ChatClientOptions, 'stream' | 'record' | 'replay'> & {
  /** Default: `completions`, falling back to `chat` for the rest of the run when the server has no `/v1/completions` (404). */
  readonly route?: TokenRoute;
};

export function createTokenClient(options: TokenClientOptions): TokenClient {
  const meter = new UsageMeter();
  const caller = createEndpointCaller(options, meter);
  let route: TokenRoute = options.route ?? 'completions';
  const fallback = options.route === undefined;
  return {
    complete: (request, key) =>
      caller.call(async (openai, timeoutMs, closing) => {
        const { attemptTokens } = await import('./completion-attempt.ts');
        const tried = route;
        const outcome = await attemptTokens(openai, tried, request, timeoutMs, closing);
        // A chat-only server (no /v1/completions): its own chat route, with the ids it returns, from now on.
        if (!outcome.ok && fallback && tried === 'completions' && outcome.failure.status === 404) {
          route = 'chat';
          return attemptTokens(openai, 'chat', request, timeoutMs, closing);
        }
        return outcome;
      }, key),
    usage: () => meter.usage(),
    close: () => caller.close(),
  };
}
