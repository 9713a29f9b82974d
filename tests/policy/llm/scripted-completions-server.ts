/**
 * A scripted OpenAI-compatible server for token-exact tests (issue 38): `/v1/completions` takes the
 * prompt as ids and answers a scripted reply as token ids with log-probs, the way vLLM does with
 * `return_token_ids` / `return_tokens_as_token_ids`; `/v1/chat/completions` renders the messages
 * with the tokenizer's chat template (as a chat-only server does) and answers the same way.
 *
 * `retokenize: 'chars'` spells each reply one character at a time (ids another tokenizer would
 * give): the text is the same, the ids are not its canonical encoding, so the drift check fires.
 * Log-probs are −(i+1)/8 for the i-th id of a reply, so a test can check every one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HfTokenizer } from '../../../policy/hf/tokenizer/index.ts';

export interface ScriptedRequest {
  readonly route: 'completions' | 'chat';
  readonly body: Record<string, unknown>;
  /** The prompt ids as the server read them (rendered here for chat). */
  readonly promptIds: number[];
}

export interface ScriptedOptions {
  readonly tokenizer: HfTokenizer;
  /** The reply's text for a request (the n-th request overall is `n`). */
  readonly reply: (request: ScriptedRequest, n: number) => string;
  /** `chars`: each character encoded alone, a spelling other than the tokenizer's. */
  readonly retokenize?: 'chars';
  /** How the ids are returned: a `token_ids` field (default), log-prob names `token_id:<id>` only, or not at all (`none`: log-probs named by their text, as a server that knows neither field). */
  readonly idsAs?: 'field' | 'names' | 'none';
  /** Leave the stop id out of the ids (finish_reason stays `stop`). */
  readonly omitStop?: boolean;
  /** No `/v1/completions` route (404), as a chat-only server. */
  readonly chatOnly?: boolean;
}

export interface ScriptedServer {
  readonly baseURL: string;
  readonly requests: ScriptedRequest[];
  close(): Promise<void>;
}

export const scriptedLogProb = (i: number): number => -(i + 1) / 8;

export async function startScriptedServer(options: ScriptedOptions): Promise<ScriptedServer> {
  const { tokenizer } = options;
  const requests: ScriptedRequest[] = [];
  const stop = tokenizer.tokenToId(String(tokenizer.specialTokens.eos_token)) ?? tokenizer.stopIds[0]!;
  const spell = (text: string): number[] =>
    options.retokenize === 'chars' ? [...text].flatMap((c) => tokenizer.encode(c, { addSpecialTokens: false })) : tokenizer.encode(text, { addSpecialTokens: false });

  const answer = (request: ScriptedRequest): object => {
    const text = options.reply(request, requests.length - 1);
    const ids = options.omitStop ? spell(text) : [...spell(text), stop];
    const logProbs = ids.map((_, i) => scriptedLogProb(i));
    const names = ids.map((id) => (options.idsAs === 'none' ? tokenizer.decode([id]) : `token_id:${id}`));
    const field = (options.idsAs ?? 'field') === 'field' ? { token_ids: ids } : {};
    const usage = { prompt_tokens: request.promptIds.length, completion_tokens: ids.length, total_tokens: request.promptIds.length + ids.length };
    if (request.route === 'completions') {
      return {
        id: `cmpl-${requests.length}`, object: 'text_completion', created: 0, model: request.body.model,
        choices: [{ index: 0, text, finish_reason: 'stop', logprobs: { tokens: names, token_logprobs: logProbs, top_logprobs: null, text_offset: [] }, ...field,
          ...((options.idsAs ?? 'field') === 'field' ? { prompt_token_ids: request.promptIds } : {}) }],
        usage,
      };
    }
    return {
      id: `chatcmpl-${requests.length}`, object: 'chat.completion', created: 0, model: request.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop',
        logprobs: { content: names.map((token, i) => ({ token, logprob: logProbs[i], bytes: [], top_logprobs: [] })) }, ...field }],
      ...((options.idsAs ?? 'field') === 'field' ? { prompt_token_ids: request.promptIds } : {}),
      usage,
    };
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const route = req.url?.endsWith('/completions') ? (req.url.endsWith('/chat/completions') ? 'chat' : 'completions') : undefined;
      if (req.method !== 'POST' || route === undefined || (route === 'completions' && options.chatOnly === true)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      const promptIds = route === 'completions'
        ? (body.prompt as number[])
        : tokenizer.encodeChat(body.messages as { role: string; content: string }[], { addGenerationPrompt: true });
      const request: ScriptedRequest = { route, body, promptIds };
      requests.push(request);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(request)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
