/**
 * WebArena's `program_html`: for each target, open its URL (`last` keeps the page the agent ended
 * on), read the locator there — a JS expression, a `func:` helper, or the whole page's HTML when
 * empty — unescape it and check `required_contents` (`exact_match`, or `must_include` whose
 * entries may offer `a |OR| b`). A locator that throws reads as '' (the page is wrong), as in
 * WebArena. The page is behind `WebArenaPage`, so the evaluator runs on a browser session or a
 * stand-in.
 */
import type { ProgramHtmlTarget } from './config-schema.ts';
import { unescapeHtml } from './html-unescape.ts';
import { gitlabMemberRoleScript, parseHelperCall, redditPostUrl, unsupportedHelper } from './page-helpers.ts';
import { exactMatch, mustInclude, type Check } from './string-match.ts';

/** What program_html needs of the browser: navigate, and evaluate a JS expression on the current page. */
export interface WebArenaPage {
  goto(url: string): Promise<void>;
  /** The value of a JS expression evaluated in the page; rejects when it throws. */
  evaluate(expression: string): Promise<unknown>;
}

/** Why `target` cannot be evaluated here (unsupported locator or helper), or undefined. */
export function unsupportedTarget(target: ProgramHtmlTarget): string | undefined {
  if (target.url.startsWith('func:')) {
    const call = parseHelperCall(target.url);
    if ('error' in call) return `program_html url: ${call.error}`;
    const why = unsupportedHelper(call, 'url');
    if (why) return why;
  }
  const locator = target.locator.trim();
  if (locator === '' || locator.startsWith('document.') || locator.startsWith('[...document.')) return undefined;
  if (locator.startsWith('func:')) {
    const call = parseHelperCall(locator);
    return 'error' in call ? `program_html locator: ${call.error}` : unsupportedHelper(call, 'locator');
  }
  return `program_html locator '${locator.slice(0, 60)}' is not supported: WebArena reads document.…, [...document.…], func:… or an empty locator`;
}

/** The URL a target is read on: `last` → undefined (stay), a helper's result, or the URL itself. */
export function targetUrl(target: ProgramHtmlTarget, lastUrl: string): string | undefined {
  if (target.url === 'last') return undefined;
  if (!target.url.startsWith('func:')) return target.url;
  const call = parseHelperCall(target.url);
  if ('error' in call) throw new Error(call.error);
  // The agent's final URL, taken once before any target navigates (WebArena reads the page's
  // URL at each target, which an earlier target may already have moved).
  return redditPostUrl(String(call.args[0]).replace('__last_url__', lastUrl));
}

const asText = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value));

async function readLocator(page: WebArenaPage, target: ProgramHtmlTarget): Promise<string> {
  const locator = target.locator.trim();
  if (locator === '') return asText(await page.evaluate('document.documentElement.outerHTML'));
  if (locator.startsWith('func:')) {
    const call = parseHelperCall(locator);
    if ('error' in call) throw new Error(call.error);
    return asText(await page.evaluate(gitlabMemberRoleScript(String(call.args[1]))));
  }
  for (const action of target.prep_actions ?? []) {
    try {
      await page.evaluate(`(() => { ${action} })()`);
    } catch {
      // WebArena ignores a failing preparation; the locator then reads what is there.
    }
  }
  try {
    return asText(await page.evaluate(`(() => (${locator}))()`));
  } catch {
    return '';
  }
}

/** The checks of one target: one for exact_match, one per must_include entry. */
export async function programHtmlChecks(page: WebArenaPage, target: ProgramHtmlTarget, lastUrl: string): Promise<Check[]> {
  const url = targetUrl(target, lastUrl);
  if (url !== undefined) await page.goto(url);
  const where = url ?? 'the last page';
  const selected = unescapeHtml(await readLocator(page, target));
  const required = target.required_contents;
  if ('exact_match' in required) {
    return [{ passed: exactMatch(required.exact_match, selected), detail: `program_html on ${where}: ${target.locator || 'page'} exact_match ${JSON.stringify(required.exact_match)}` }];
  }
  return required.must_include.map((entry) => ({
    passed: entry.split(' |OR| ').some((option) => mustInclude(option, selected, false)),
    detail: `program_html on ${where}: ${target.locator || 'page'} must_include ${JSON.stringify(entry)}`,
  }));
}
