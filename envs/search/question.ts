/** A Deep Search question: its text, gold answers and the articles that prove the answer. */

export type QuestionKind =
  | 'capital'
  | 'country-of-capital'
  | 'currency'
  | 'language'
  | 'subregion'
  | 'capital-currency'
  | 'capital-language'
  | 'border-currency-capital'
  | 'larger-area'
  | 'capital-border-currency-capital'
  | 'capital-border-language-currency'
  | 'capital-border-landlocked-capital';

export interface Question {
  /** The task id: `<kind>/<entity codes>`, e.g. `capital/FRA`, `border-currency-capital/DEU/EUR`. */
  readonly id: string;
  readonly kind: QuestionKind;
  /** Relations composed to reach the answer. */
  readonly hops: 1 | 2 | 3;
  readonly text: string;
  /** Accepted answers: the gold answer first, then aliases. Exact match after normalization. */
  readonly answers: readonly string[];
  /** Titles of the articles that hold the needed facts, in the order a solver needs them. */
  readonly evidence: readonly string[];
}
