/**
 * A scripted OpenAI-compatible endpoint for measuring `eval --env web --agent openai:MODEL`
 * without model weights: bench/chat-fault-server.ts answering every turn with
 * scripted-web-player.ts, which reads the page it is sent and plays the shop's
 * price / review-count / SKU / stock questions (any other objective: `stop [N/A]`). Replies come
 * after `--latency-ms` (default 0); each reports as its prompt tokens the chars/4 estimate of the
 * messages it was sent, so results.json's `tokens` reflect prompt size. Prints the base URL,
 * serves until killed, then prints how many chat requests it answered.
 *
 *   npx tsx experiments/web-llm/scripted-endpoint.ts [--latency-ms L]   # prints http://127.0.0.1:PORT/v1
 */
import { estimateTokens } from '../../policy/llm/history.ts';
import { startFaultServer } from '../../bench/chat-fault-server.ts';
import { lastUserTurn, scriptedWebReply } from './scripted-web-player.ts';

const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

const server = await startFaultServer({
  latencyMs: Number(arg('--latency-ms') ?? 0),
  script: (request) => {
    const messages = (request.body as { messages: { content: string }[] }).messages;
    return { kind: 'ok', promptTokens: messages.reduce((n, m) => n + estimateTokens(m.content), 0) };
  },
  content: (request) => {
    const { text, turn } = lastUserTurn(request);
    return scriptedWebReply(text, turn);
  },
});
console.log(server.baseURL);
const stop = async () => {
  console.log(`${server.chatRequests} chat requests answered`);
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
