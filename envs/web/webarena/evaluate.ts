/**
 * Scores a WebArena episode as WebArena's evaluator_router does: every evaluator in `eval_types`
 * (string_match on the `stop` answer, url_match on the final URL, program_html on pages read
 * afterwards) runs, and the reward is 1 only when every check passes.
 */
import type { WebArenaJudge } from './judge.ts';
import { programHtmlChecks, type WebArenaPage } from './program-html.ts';
import { stringMatchChecks, type Check } from './string-match.ts';
import type { WebArenaTask } from './task.ts';
import { urlMatchCheck } from './url-match.ts';

export interface WebArenaEpisodeEnd {
  /** The answer of `stop [answer]`. */
  readonly answer: string;
  /** The URL of the current tab when the agent stopped. */
  readonly finalUrl: string;
  /** The browser, for program_html (it navigates it). */
  readonly page: WebArenaPage;
  readonly judge?: WebArenaJudge | undefined;
}

export interface WebArenaVerdict {
  readonly reward: 0 | 1;
  /** Every check with its expected value: for the trajectory, never for the agent. */
  readonly checks: readonly Check[];
}

export async function evaluateWebArenaTask(task: WebArenaTask, end: WebArenaEpisodeEnd): Promise<WebArenaVerdict> {
  const spec = task.config.eval;
  const checks: Check[] = [];
  for (const type of spec.eval_types) {
    if (type === 'string_match') {
      checks.push(...(await stringMatchChecks(spec.reference_answers!, end.answer, { intent: task.config.intent, stringNote: spec.string_note, judge: end.judge })));
    } else if (type === 'url_match') {
      checks.push(urlMatchCheck(spec.reference_url!, end.finalUrl));
    } else {
      for (const target of spec.program_html ?? []) checks.push(...(await programHtmlChecks(end.page, target, end.finalUrl)));
    }
  }
  return { reward: checks.length > 0 && checks.every((check) => check.passed) ? 1 : 0, checks };
}

/** The checks as one line: `pass url_match … · FAIL must_include "x"`. */
export function describeVerdict(verdict: WebArenaVerdict): string {
  return verdict.checks.map((check) => `${check.passed ? 'pass' : 'FAIL'} ${check.detail}`).join(' · ');
}
