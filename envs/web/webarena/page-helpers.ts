/**
 * The `func:` helpers of WebArena's program_html that actorgym runs: in a target's `url`,
 * `reddit_get_post_url('__last_url__')`; in a `locator`, `gitlab_get_project_memeber_role(__page__,
 * 'account')` (WebArena's spelling). The shopping helpers (`shopping_get_latest_order_url`,
 * `shopping_get_sku_latest_review_author`, `…_rating`) call the Magento admin REST API with
 * WebArena's admin account and are not supported: tasks that use them are skipped when loaded.
 */

/** A parsed `func:name(arg, …)`: string arguments, or `__page__` (the evaluated page). */
export interface HelperCall {
  readonly name: string;
  readonly args: readonly (string | { readonly page: true })[];
}

export const URL_HELPERS = ['reddit_get_post_url'] as const;
export const LOCATOR_HELPERS = ['gitlab_get_project_memeber_role'] as const;

/** `func:name('a', __page__)` → the call; anything else (other argument forms too) → an error message. */
export function parseHelperCall(text: string): HelperCall | { readonly error: string } {
  const match = /^func:\s*([A-Za-z_]\w*)\s*\(([\s\S]*)\)\s*$/.exec(text.trim());
  if (!match) return { error: `'${text}' is not a func:name(…) call` };
  const args: (string | { readonly page: true })[] = [];
  let rest = match[2]!.trim();
  while (rest.length > 0) {
    const arg = /^(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(__page__))\s*(?:,\s*|$)/.exec(rest);
    if (!arg) return { error: `the arguments of '${text}' are not quoted strings or __page__` };
    args.push(arg[3] !== undefined ? { page: true } : (arg[1] ?? arg[2] ?? '').replace(/\\(.)/g, '$1'));
    rest = rest.slice(arg[0].length);
  }
  return { name: match[1]!, args };
}

/** Why `call` cannot run as a `url` (or `locator`) helper, or undefined when it can. */
export function unsupportedHelper(call: HelperCall, where: 'url' | 'locator'): string | undefined {
  const known: readonly string[] = where === 'url' ? URL_HELPERS : LOCATOR_HELPERS;
  if (!known.includes(call.name)) {
    const rest = call.name.startsWith('shopping_') ? ' (it needs the Magento admin REST API)' : '';
    return `program_html ${where} helper func:${call.name} is not supported${rest}; supported: ${known.join(', ')}`;
  }
  const expected = call.name === 'reddit_get_post_url' ? 'one string' : '__page__ and one string';
  const ok = call.name === 'reddit_get_post_url'
    ? call.args.length === 1 && typeof call.args[0] === 'string'
    : call.args.length === 2 && typeof call.args[0] !== 'string' && typeof call.args[1] === 'string';
  return ok ? undefined : `program_html ${where} helper func:${call.name} takes ${expected}`;
}

/** reddit_get_post_url: a Postmill post or comment URL cut to the post (`/f/forum/id/`); other URLs unchanged. */
export function redditPostUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const parts = parsed.pathname.split('/');
  if (parts.length < 4 || parts[1] !== 'f') return url;
  return `${parsed.protocol}//${parsed.host}/f/${parts[2]}/${parts[3]}/`;
}

/** The page script of gitlab_get_project_memeber_role: the role shown beside `@account` on a project's members page, or ''. */
export function gitlabMemberRoleScript(account: string): string {
  return `(() => { try {
    const accounts = [...document.querySelectorAll("td[data-label='Account'] span.gl-avatar-labeled-sublabel")];
    const index = accounts.findIndex((el) => el.outerText === ${JSON.stringify(`@${account}`)});
    return document.querySelectorAll('td.col-max-role span')[index].outerText;
  } catch { return ''; } })()`;
}
