/**
 * The retriever behind `<search>`: the local BM25 engine over the world-countries corpus by
 * default, or an external Search-R1-style HTTP endpoint (`POST /retrieve`), chosen per env
 * (`SearchEnvOptions`) or per process with `ACTORGYM_SEARCH_RETRIEVER_URL`.
 */
import type { Passage } from './grammar.ts';
import { Bm25Retriever } from './bm25-retriever.ts';
import { HttpRetriever } from './http-retriever.ts';

export interface Retriever {
  /** `bm25` or `http <url>`, for logs and errors. */
  readonly name: string;
  /** The best `topk` passages for `query`, best first. Fails with an `EnvError` when it cannot answer. */
  retrieve(query: string, topk: number): Promise<readonly Passage[]>;
}

/** Passages per search: AgentGym's `retrieval_topk` default and Search-R1's `topk`. */
export const TOP_K = 3;

/** Names the endpoint URL of an external retriever, e.g. `http://127.0.0.1:8000/retrieve`. */
export const RETRIEVER_URL_ENV = 'ACTORGYM_SEARCH_RETRIEVER_URL';
/** Per-request deadline of the external retriever in ms (default `DEFAULT_RETRIEVER_TIMEOUT_MS`). */
export const RETRIEVER_TIMEOUT_ENV = 'ACTORGYM_SEARCH_RETRIEVER_TIMEOUT_MS';
export const DEFAULT_RETRIEVER_TIMEOUT_MS = 10_000;

export interface RetrieverChoice {
  /** A ready retriever; wins over everything else. */
  readonly retriever?: Retriever;
  /** An external endpoint; wins over the environment variable. */
  readonly retrieverUrl?: string;
  readonly retrieverTimeoutMs?: number;
}

/** Option, then `ACTORGYM_SEARCH_RETRIEVER_URL`, then the local BM25 engine. */
export function chooseRetriever(choice: RetrieverChoice = {}, env: NodeJS.ProcessEnv = process.env): Retriever {
  if (choice.retriever) return choice.retriever;
  const url = choice.retrieverUrl ?? nonEmpty(env[RETRIEVER_URL_ENV]);
  if (url === undefined) return new Bm25Retriever();
  const timeoutMs = choice.retrieverTimeoutMs ?? timeoutFrom(env[RETRIEVER_TIMEOUT_ENV]);
  return new HttpRetriever({ url, timeoutMs });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

function timeoutFrom(raw: string | undefined): number {
  if (nonEmpty(raw) === undefined) return DEFAULT_RETRIEVER_TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`${RETRIEVER_TIMEOUT_ENV} must be a positive number of milliseconds, got "${raw}"`);
  return ms;
}
