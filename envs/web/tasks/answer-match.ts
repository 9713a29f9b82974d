/**
 * The answer evaluators for `stop [answer]`, after WebArena's string_match (exact_match,
 * must_include, fuzzy_match) with typed ones that read ONE answer of the asked kind out of the
 * text and compare it: a number (money and scales too), a date, an id, a name among the names of
 * its kind. An answer that states several values of the kind (an enumeration) or hedges with
 * N/A fails. Rules: docs/envs/web-evaluators.md; the readers are in normalise.ts.
 */
import {
  answerDate, canonicalId, extractDates, extractIds, extractNumbers, findNames, nameKey, normalizeAnswer, saysNotAchievable,
} from './normalise.ts';
import type { AnswerEvaluator, WebVerdict } from './task.ts';
import { vocabulary } from './vocabularies.ts';

export { answerNumber, normalizeAnswer } from './normalise.ts';

const verdict = (ok: boolean, reason: string): WebVerdict => ({ reward: ok ? 1 : 0, reason });

/** An answer as a reason quotes it: cut, so a 2,000-date enumeration is not logged whole. */
const QUOTED = 160;
const quote = (answer: string) => `'${answer.length <= QUOTED ? answer : `${answer.slice(0, QUOTED)}…`}'`;

/** Up to this many found values are listed in a reason; more are counted. */
const LISTED = 3;
const listed = (values: readonly unknown[]) =>
  `${values.slice(0, LISTED).map((v) => `'${String(v)}'`).join(', ')}${values.length > LISTED ? ` and ${values.length - LISTED} more` : ''}`;

/** One value of a kind out of the answer: none, several (an enumeration), or the one. */
function one<T>(type: string, expected: string, answer: string, found: readonly T[], same: (value: T) => boolean, shown: (value: T) => string = String): WebVerdict {
  if (found.length === 0) return verdict(false, `${type}: expected ${expected}, but ${quote(answer)} states no ${type}`);
  if (found.length > 1) return verdict(false, `${type}: expected ${expected}, but ${quote(answer)} states ${found.length} different values (${listed(found.map(shown))}); give one answer`);
  const value = found[0] as T;
  return verdict(same(value), `${type}: expected ${expected}, got ${shown(value)}`);
}

function namesOf(spec: Extract<AnswerEvaluator, { type: 'name' }>): readonly string[] {
  const among = typeof spec.among === 'string' ? vocabulary(spec.among) : spec.among;
  return among.some((n) => nameKey(n) === nameKey(spec.expected)) ? among : [...among, spec.expected];
}

/** Scores an answer by the evaluator's rules; `fuzzy_match` without a judge is an exact match (see evaluate.ts for the judge). */
export function matchAnswer(spec: AnswerEvaluator, answer: string | undefined): WebVerdict {
  if (answer === undefined) return verdict(false, 'no answer: the episode did not end with stop [answer]');
  const given = normalizeAnswer(answer);
  const typed = spec.type === 'number' || spec.type === 'date' || spec.type === 'id' || spec.type === 'name';
  if (typed && saysNotAchievable(answer)) return verdict(false, `${spec.type}: expected ${String(spec.expected)}, but ${quote(answer)} says N/A`);
  switch (spec.type) {
    case 'exact_match':
      return verdict(given === normalizeAnswer(spec.expected), `exact_match: expected '${spec.expected}', got ${quote(answer)}`);
    case 'must_include': {
      const missing = spec.expected.filter((e) => !given.includes(normalizeAnswer(e)));
      return verdict(missing.length === 0, missing.length === 0 ? `must_include: all of ${JSON.stringify(spec.expected)} found` : `must_include: missing ${JSON.stringify(missing)} in ${quote(answer)}`);
    }
    case 'fuzzy_match':
      return verdict(nameKey(answer) === nameKey(spec.expected), `fuzzy_match (no judge, so exact): expected '${spec.expected}', got ${quote(answer)}`);
    case 'number':
      return one('number', `${spec.expected}${spec.tolerance > 0.01 ? ` (±${spec.tolerance})` : ''}`, answer, extractNumbers(answer), (v) => Math.abs(v - spec.expected) <= spec.tolerance);
    case 'date':
      return one('date', spec.expected, answer, extractDates(answer), (v) => v === answerDate(spec.expected));
    case 'id':
      return one('id', spec.expected, answer, extractIds(answer, spec.expected), (v) => v === canonicalId(spec.expected));
    case 'name':
      return one('name', `'${spec.expected}'`, answer, findNames(answer, namesOf(spec)), (v) => nameKey(v) === nameKey(spec.expected), (v) => v);
  }
}

/** Whether a spec's answer is free text that an LLM judge may grade (WebArena's fuzzy_match). */
export function judgeable(spec: AnswerEvaluator): spec is Extract<AnswerEvaluator, { type: 'fuzzy_match' }> {
  return spec.type === 'fuzzy_match';
}
