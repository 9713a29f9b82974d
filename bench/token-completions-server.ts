/**
 * A stand-in for a vLLM endpoint that returns token ids, for `bench rollout-service`: `POST
 * /v1/completions` takes the prompt as ids and answers, after `delayMs`, a BabyAI move as token ids
 * with log-probs (`token_ids`, `prompt_token_ids`, as vLLM's `return_token_ids` does). The move is
 * drawn from the prompt itself (its length and last ids), so the same episode gets the same
 * replies whichever process plays it and in whatever order calls arrive: two runs of the same
 * tasks and seed do the same work.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadHfTokenizer } from '../policy/hf/tokenizer/index.ts';

const MOVES = ['turn left', 'turn right', 'go forward', 'go forward', 'pickup', 'toggle'];

export interface TokenCompletionsServer {
  readonly baseURL: string;
  /** Completions answered so far. */
  readonly calls: () => number;
  close(): Promise<void>;
}

function moveOf(prompt: readonly number[]): string {
  let hash = prompt.length;
  for (const id of prompt.slice(-16)) hash = (hash * 31 + id) >>> 0;
  return MOVES[hash % MOVES.length] as string;
}

export async function startTokenCompletionsServer(tokenizerDir: string, delayMs: number): Promise<TokenCompletionsServer> {
  const tokenizer = loadHfTokenizer(tokenizerDir);
  const stop = tokenizer.tokenToId(String(tokenizer.specialTokens.eos_token)) ?? (tokenizer.stopIds[0] as number);
  let calls = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => setTimeout(() => {
      if (req.method !== 'POST' || !req.url?.endsWith('/v1/completions')) return void res.writeHead(404).end('{}');
      const body = JSON.parse(raw) as { prompt: number[]; model: string };
      const text = `Thought: next\nAction: ${moveOf(body.prompt)}`;
      const ids = [...tokenizer.encode(text, { addSpecialTokens: false }), stop];
      const logProbs = ids.map((_, i) => -(i + 1) / 8);
      calls += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        id: `cmpl-${calls}`, object: 'text_completion', created: 0, model: body.model,
        choices: [{ index: 0, text, finish_reason: 'stop', token_ids: ids, prompt_token_ids: body.prompt,
          logprobs: { tokens: ids.map((id) => `token_id:${id}`), token_logprobs: logProbs, top_logprobs: null, text_offset: [] } }],
        usage: { prompt_tokens: body.prompt.length, completion_tokens: ids.length, total_tokens: body.prompt.length + ids.length },
      }));
    }, delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
