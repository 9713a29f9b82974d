/**
 * Scores an episode of a web task: WebArena's binary reward from the task's evaluator (the
 * answer, the final URL or the site's database), with a one-line reason for the logs.
 */
import { matchAnswer } from './answer-match.ts';
import { checkDatabase } from './db-check.ts';
import type { WebOutcome, WebTask, WebVerdict } from './task.ts';
import { matchUrl } from './url-match.ts';

export function evaluateWebTask(task: WebTask, outcome: WebOutcome): WebVerdict {
  const spec = task.evaluator;
  switch (spec.type) {
    case 'exact_match':
    case 'must_include':
    case 'number':
      return matchAnswer(spec, outcome.answer);
    case 'url_match':
      return matchUrl(spec, outcome.finalUrl);
    case 'db':
      if (!outcome.db) throw new Error(`task ${task.id} is checked on the ${task.site} database, but no database was given (is the site external?)`);
      return checkDatabase(spec, outcome.db);
  }
}
