/**
 * WebArena's string evaluators for `stop [answer]`: exact match, must-include, and a numeric
 * match that reads `$12.50`, `12.5` and `1,249 reviews` alike. Answers are normalized first
 * (case, whitespace, surrounding quotes, a final period), so formatting never costs the reward.
 */
import type { AnswerEvaluator, WebVerdict } from './task.ts';

/** Lower case, one space between words, no surrounding quotes or final period. */
export function normalizeAnswer(text: string): string {
  let s = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  // Quotes and a final period in either order: `"Red."` and `"Red".` are both `red`.
  for (let i = 0; i < 2; i++) s = s.replace(/[.。]$/, '').trim().replace(/^["'“‘`]+|["'”’`]+$/g, '').trim();
  return s;
}

/**
 * The one number an answer states, or undefined when it states none or several different ones
 * (so "between 3 and 5" is not read as 3). A `$`, thousands commas and words around it are fine.
 */
export function answerNumber(text: string): number | undefined {
  const found = [...text.replace(/(\d),(?=\d{3}\b)/g, '$1').matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  const distinct = [...new Set(found)];
  return distinct.length === 1 ? distinct[0] : undefined;
}

export function matchAnswer(spec: AnswerEvaluator, answer: string | undefined): WebVerdict {
  if (answer === undefined) return { reward: 0, reason: 'no answer: the episode did not end with stop [answer]' };
  const given = normalizeAnswer(answer);
  switch (spec.type) {
    case 'exact_match': {
      const ok = given === normalizeAnswer(spec.expected);
      return { reward: ok ? 1 : 0, reason: `exact_match: expected '${spec.expected}', got '${answer}'` };
    }
    case 'must_include': {
      const missing = spec.expected.filter((e) => !given.includes(normalizeAnswer(e)));
      return { reward: missing.length === 0 ? 1 : 0, reason: missing.length === 0 ? `must_include: all of ${JSON.stringify(spec.expected)} found` : `must_include: missing ${JSON.stringify(missing)} in '${answer}'` };
    }
    case 'number': {
      const value = answerNumber(answer);
      if (value === undefined) return { reward: 0, reason: `number: expected ${spec.expected}, but '${answer}' does not state exactly one number` };
      const ok = Math.abs(value - spec.expected) <= spec.tolerance;
      return { reward: ok ? 1 : 0, reason: `number: expected ${spec.expected} (±${spec.tolerance}), got ${value}` };
    }
  }
}
