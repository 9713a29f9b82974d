/**
 * WebArena's answer comparison (evaluation_harness StringEvaluator): an answer and a reference
 * are trimmed, lose one pair of surrounding quotes and are lower-cased; `exact_match` compares
 * them whole, `must_include` looks for each reference inside the answer. A one-character
 * reference that is the only entry of `must_include` must be a whole token (so `0` is not found
 * in `10`). The `string_match` evaluator multiplies every check of `reference_answers`.
 */
import type { ReferenceAnswers } from './config-schema.ts';
import type { WebArenaJudge } from './judge.ts';

/** WebArena's clean_answer. */
export function cleanAnswer(text: string): string {
  let answer = text.trim();
  if (answer.length >= 2 && ((answer.startsWith("'") && answer.endsWith("'")) || (answer.startsWith('"') && answer.endsWith('"')))) {
    answer = answer.slice(1, -1);
  }
  return answer.toLowerCase();
}

export function exactMatch(reference: string, prediction: string): boolean {
  return cleanAnswer(prediction) === cleanAnswer(reference);
}

/**
 * Words and punctuation marks, after NLTK's word_tokenize closely enough for the one case WebArena
 * tokenizes: a one-character reference.
 */
export function wordTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

export function mustInclude(reference: string, prediction: string, tokenize: boolean): boolean {
  const ref = cleanAnswer(reference);
  const pred = cleanAnswer(prediction);
  if (tokenize && [...ref].length === 1) return wordTokens(pred).includes(ref);
  return pred.includes(ref);
}

/** One check and whether it passed; `detail` names the expected value (kept out of the agent's view). */
export interface Check {
  readonly passed: boolean;
  readonly detail: string;
}

export interface StringMatchContext {
  readonly intent: string;
  /** Why an unachievable task is so (`eval.string_note`), for the judge. */
  readonly stringNote?: string | null | undefined;
  readonly judge?: WebArenaJudge | undefined;
}

/** Every check of `reference_answers` on the `stop` answer, in WebArena's order. */
export async function stringMatchChecks(answers: ReferenceAnswers, rawAnswer: string, context: StringMatchContext): Promise<Check[]> {
  const answer = cleanAnswer(rawAnswer);
  const checks: Check[] = [];
  if (answers.exact_match !== undefined) {
    checks.push({ passed: exactMatch(answers.exact_match, answer), detail: `exact_match ${JSON.stringify(answers.exact_match)}` });
  }
  if (answers.must_include !== undefined) {
    const tokenize = answers.must_include.length === 1;
    for (const reference of answers.must_include) {
      checks.push({ passed: mustInclude(reference, answer, tokenize), detail: `must_include ${JSON.stringify(reference)}` });
    }
  }
  if (answers.fuzzy_match !== undefined) checks.push(...(await fuzzyChecks(answers.fuzzy_match, answer, context)));
  return checks;
}

async function fuzzyChecks(fuzzy: string | readonly string[], answer: string, context: StringMatchContext): Promise<Check[]> {
  if (fuzzy === 'N/A') {
    if (exactMatch('N/A', answer)) return [{ passed: true, detail: 'fuzzy_match "N/A" (exact)' }];
    const reason = context.stringNote?.trim();
    if (!context.judge || !reason) return [{ passed: false, detail: `fuzzy_match "N/A": the answer is not N/A${context.judge ? ' and the task has no string_note to judge a reason by' : ' (no judge to read a stated reason)'}` }];
    const passed = await context.judge({ kind: 'unachievable', intent: context.intent, reason, answer });
    return [{ passed, detail: `fuzzy_match "N/A": the judge found the reason ${passed ? 'the same' : 'different'} (${JSON.stringify(reason)})` }];
  }
  const judge = context.judge;
  // The loader skips these tasks when there is no judge; reaching here without one is a bug.
  if (!judge) throw new Error('fuzzy_match needs an LLM judge');
  const references = typeof fuzzy === 'string' ? [fuzzy] : fuzzy;
  const checks: Check[] = [];
  for (const reference of references) {
    const passed = await judge({ kind: 'fuzzy_match', intent: context.intent, reference, answer });
    checks.push({ passed, detail: `fuzzy_match ${JSON.stringify(reference)} (judge)` });
  }
  return checks;
}
