/**
 * Deep Search's task categories: the hop count of the question (`1-hop`, `2-hop`, `3-hop`), read
 * from the question kind that starts the task id (`capital-currency/FRA` → 2-hop). The kind
 * fixes the hops, so no question pool is built and no env is reset.
 */
import { EnvError } from '../contract.ts';
import type { Question, QuestionKind } from './question.ts';

/** The hops of each kind; the tests check it against every generated question's `hops`. */
export const HOPS_OF_KIND: Readonly<Record<QuestionKind, Question['hops']>> = {
  capital: 1,
  'country-of-capital': 1,
  currency: 1,
  language: 1,
  subregion: 1,
  'capital-currency': 2,
  'capital-language': 2,
  'border-currency-capital': 2,
  'larger-area': 2,
  'capital-border-currency-capital': 3,
  'capital-border-language-currency': 3,
  'capital-border-landlocked-capital': 3,
};

export function searchCategoryOf(taskId: string): string {
  const slash = typeof taskId === 'string' ? taskId.indexOf('/') : -1;
  const kind = slash > 0 ? taskId.slice(0, slash) : '';
  const hops = Object.hasOwn(HOPS_OF_KIND, kind) ? HOPS_OF_KIND[kind as QuestionKind] : undefined;
  if (hops === undefined) {
    throw new EnvError('TASK_UNKNOWN', `unknown search task "${String(taskId)}"; expected <kind>/<codes> such as capital/FRA`);
  }
  return `${hops}-hop`;
}
