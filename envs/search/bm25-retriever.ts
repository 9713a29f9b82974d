/**
 * The local search engine: classic BM25 (k1 1.2, b 0.75, no BM25+ delta) from `minisearch`
 * over the world-countries corpus, titles boosted ×2 as in most field-weighted BM25 setups.
 * The index is built once per process on the first search (about a thousand short documents),
 * so making and resetting envs stays cheap.
 */
import MiniSearch from 'minisearch';
import { contentsOf, corpus, type Document } from './corpus.ts';
import { stripDiacritics } from './facts.ts';
import type { Passage } from './grammar.ts';
import type { Retriever } from './retriever.ts';

export const BM25_PARAMS = { k: 1.2, b: 0.75, d: 0 } as const;
/** Longer queries are cut here: a bound on work per step, far above any real question. */
export const MAX_QUERY_CHARS = 2_000;

// Lucene's English stop words plus question words: they carry no evidence, and minisearch
// multiplies a score by the number of query terms matched, so they would favour long documents.
const STOP_WORDS = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with ' +
    'what which who whom whose where when how does do did has have had its from')
    .split(' '),
);

interface Index {
  readonly search: MiniSearch<Document>;
  readonly byId: ReadonlyMap<string, { doc: Document; order: number }>;
}

let cached: Index | undefined;

/** Lower-cased, diacritics folded (`Bogota` finds `Bogotá`), stop words dropped. */
export function processTerm(term: string): string | null {
  const t = stripDiacritics(term.toLowerCase());
  return t === '' || STOP_WORDS.has(t) ? null : t;
}

function index(): Index {
  if (cached) return cached;
  const docs = corpus();
  const search = new MiniSearch<Document>({
    fields: ['title', 'text'],
    processTerm,
    searchOptions: { boost: { title: 2 }, bm25: BM25_PARAMS, combineWith: 'OR' },
  });
  search.addAll(docs);
  cached = { search, byId: new Map(docs.map((doc, order) => [doc.id, { doc, order }])) };
  return cached;
}

export class Bm25Retriever implements Retriever {
  readonly name = 'bm25';

  async retrieve(query: string, topk: number): Promise<readonly Passage[]> {
    const { search, byId } = index();
    const hits = search.search(query.slice(0, MAX_QUERY_CHARS)).map((h) => ({ score: h.score, ...(byId.get(h.id as string) as { doc: Document; order: number }) }));
    // Ties go to corpus order, so equal scores never depend on the index's internals.
    hits.sort((a, b) => b.score - a.score || a.order - b.order);
    return hits.slice(0, topk).map((h) => ({ contents: contentsOf(h.doc), score: h.score }));
  }
}
