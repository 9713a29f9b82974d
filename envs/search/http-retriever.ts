/**
 * An external retriever with Search-R1's retrieval-server API, so a dense retriever over
 * Wikipedia (e5 + FAISS, as AgentGym's SearchQA uses) can stand behind `<search>`:
 *
 *   POST <url>  {"queries": ["…"], "topk": 3, "return_scores": true}
 *   → {"result": [[{"document": {"contents": "\"Title\"\ntext", …}, "score": 0.8}, …]]}
 *
 * Hits without scores (`return_scores: false` servers reply `[[{"contents": …}]]`) are accepted
 * too. Failures are `EnvError`s, so a down retriever aborts the episode instead of scoring it:
 * unreachable → `ENV_LOST`, over the deadline → `ENV_TIMEOUT`, a bad reply → `PROTOCOL_ERROR`.
 */
import { EnvError } from '../contract.ts';
import type { Passage } from './grammar.ts';
import { RETRIEVER_URL_ENV, type Retriever } from './retriever.ts';
import { errorMessage } from '../error-message.ts';

export interface HttpRetrieverOptions {
  /** The endpoint, e.g. `http://127.0.0.1:8000/retrieve`; a bare `http://host:port` gets `/retrieve`. */
  readonly url: string;
  readonly timeoutMs: number;
}

/** Replies larger than this are refused: three passages are a few kilobytes. */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

export class HttpRetriever implements Retriever {
  readonly name: string;
  readonly url: string;

  constructor(private readonly options: HttpRetrieverOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new EnvError('PROTOCOL_ERROR', `search retriever URL "${options.url}" is not a valid URL (set ${RETRIEVER_URL_ENV} to e.g. http://127.0.0.1:8000/retrieve)`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new EnvError('PROTOCOL_ERROR', `search retriever URL "${options.url}" must be http:// or https://`);
    }
    if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/retrieve';
    this.url = parsed.toString();
    this.name = `http ${this.url}`;
  }

  async retrieve(query: string, topk: number): Promise<readonly Passage[]> {
    const body = JSON.stringify({ queries: [query], topk, return_scores: true });
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      throw this.#transportError(error);
    }
    const text = await this.#readText(response);
    if (!response.ok) {
      throw new EnvError('PROTOCOL_ERROR', `search retriever ${this.url} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new EnvError('PROTOCOL_ERROR', `search retriever ${this.url} did not answer JSON: ${text.slice(0, 200)}`);
    }
    return parseReply(json, this.url).slice(0, topk);
  }

  /** Reads the body up to `MAX_REPLY_BYTES`, so a runaway server cannot fill memory. */
  async #readText(response: Response): Promise<string> {
    const reader = response.body?.getReader();
    if (!reader) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > MAX_REPLY_BYTES) {
          await reader.cancel();
          throw new EnvError('PROTOCOL_ERROR', `search retriever ${this.url} sent more than ${MAX_REPLY_BYTES} bytes`);
        }
        chunks.push(value);
      }
    } catch (error) {
      throw error instanceof EnvError ? error : this.#transportError(error);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  #transportError(error: unknown): EnvError {
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      return new EnvError('ENV_TIMEOUT', `search retriever ${this.url} did not answer within ${this.options.timeoutMs} ms`);
    }
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : errorMessage(cause);
    return new EnvError(
      'ENV_LOST',
      `search retriever ${this.url} is unreachable (${code}): start the retrieval server (Search-R1's retrieval_server.py) or unset ${RETRIEVER_URL_ENV} to use the local BM25 engine`,
    );
  }
}

/** Checks the Search-R1 reply shape and takes the first query's hits. */
export function parseReply(json: unknown, url: string): Passage[] {
  const bad = (what: string): never => {
    throw new EnvError('PROTOCOL_ERROR', `search retriever ${url} sent an unexpected reply: ${what} (expected {"result": [[{"document": {"contents": "..."}, "score": n}]]})`);
  };
  if (typeof json !== 'object' || json === null || !('result' in json)) return bad('no "result" field');
  const result = (json as { result: unknown }).result;
  if (!Array.isArray(result) || !Array.isArray(result[0])) return bad('"result" is not a list of hit lists');
  return (result[0] as unknown[]).map((hit, i) => {
    if (typeof hit !== 'object' || hit === null) return bad(`hit ${i} is not an object`);
    const doc = 'document' in hit ? (hit as { document: unknown }).document : hit;
    const contents = typeof doc === 'object' && doc !== null && 'contents' in doc ? (doc as { contents: unknown }).contents : undefined;
    if (typeof contents !== 'string') return bad(`hit ${i} has no string "contents"`);
    const score = 'score' in hit && typeof (hit as { score: unknown }).score === 'number' ? (hit as { score: number }).score : 0;
    return { contents, score };
  });
}
