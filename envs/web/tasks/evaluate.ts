/**
 * Scores an episode of a web task: WebArena's binary reward from the task's evaluator (the
 * answer, the final URL or the site's database), with a one-line reason for the logs. With an
 * LLM judge, free-text answers (`fuzzy_match`) are graded by it and the verdict names it.
 */
import { judgeable, matchAnswer } from './answer-match.ts';
import { checkDatabase } from './db-check.ts';
import type { AnswerJudge } from './judge.ts';
import type { WebOutcome, WebTask, WebVerdict } from './task.ts';
import { matchUrl } from './url-match.ts';

export function evaluateWebTask(task: WebTask, outcome: WebOutcome): WebVerdict {
  const spec = task.evaluator;
  switch (spec.type) {
    case 'url_match':
      return matchUrl(spec, outcome.finalUrl);
    case 'db':
      if (!outcome.db) throw new Error(`task ${task.id} is checked on the ${task.site} database, but no database was given (is the site external?)`);
      return checkDatabase(spec, outcome.db);
    default:
      return matchAnswer(spec, outcome.answer);
  }
}

/**
 * As `evaluateWebTask`, but a free-text answer that is not word for word the reference goes to
 * `judge` (when given). Every other evaluator stays deterministic and never calls it.
 */
export async function evaluateWebTaskJudged(task: WebTask, outcome: WebOutcome, judge?: AnswerJudge): Promise<WebVerdict> {
  const local = evaluateWebTask(task, outcome);
  const spec = task.evaluator;
  if (!judge || local.reward === 1 || spec.type !== 'fuzzy_match' || !judgeable(spec) || outcome.answer === undefined || outcome.answer.trim() === '') return local;
  const ok = await judge.grade({ question: task.objective, reference: spec.expected, answer: outcome.answer });
  return { reward: ok ? 1 : 0, reason: `fuzzy_match: ${judge.name} judged '${outcome.answer}' ${ok ? 'correct' : 'incorrect'} for the reference '${spec.expected}'`, judge: judge.name };
}
