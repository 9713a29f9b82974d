/**
 * SQuAD's answer normalization and exact match, as Search-R1 and AgentGym's SearchQA score
 * answers: lower-case, drop ASCII punctuation (Python's `string.punctuation`), drop the
 * articles a/an/the, collapse whitespace.
 */

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// Python's `\b` is Unicode-aware for str patterns; JS's is ASCII-only, so "théa" would lose its
// "a". Word characters here are letters, marks, digits and `_`, as in Python's `\w`.
const ARTICLES = /(?<![\p{L}\p{M}\p{N}_])(?:a|an|the)(?![\p{L}\p{M}\p{N}_])/gu;

export function normalizeAnswer(text: string): string {
  const lower = text.toLowerCase();
  const noPunctuation = lower.replace(PUNCTUATION, '');
  const noArticles = noPunctuation.replace(ARTICLES, ' ');
  return noArticles.split(/\s+/).filter((w) => w !== '').join(' ');
}

/** True when `prediction` equals any gold answer after normalization (Search-R1's `em_check`). */
export function exactMatch(prediction: string, golds: readonly string[]): boolean {
  const p = normalizeAnswer(prediction);
  return golds.some((g) => normalizeAnswer(g) === p);
}
