/**
 * What the harder templates (multi-hop.ts, cross-site.ts, infeasible.ts) share: a template's
 * draw for the `test-templates` split, plans that move between the two sites, and WebArena's
 * answer for an infeasible task.
 */
import { Rng } from '../../rng.ts';
import type { SiteName } from '../site-urls.ts';
import type { AnswerEvaluator, WebPlanStep } from './task.ts';

/** WebArena's answer when a task cannot be done; the prompt asks for it (prompt.ts, `stop`). */
export const INFEASIBLE_ANSWER = 'N/A';
export const INFEASIBLE_EVALUATOR: AnswerEvaluator = { type: 'exact_match', expected: INFEASIBLE_ANSWER };

/**
 * `count` entities for a template of the `test-templates` split, from every entity (train's and
 * test's alike: no train task uses the template), in a shuffle seeded by the template's name.
 */
export function drawForTemplate<T>(template: string, items: readonly T[], count: number): T[] {
  if (items.length < count) throw new Error(`web task template ${template}: only ${items.length} entities for ${count} tasks`);
  return Rng.fromString(`web/tasks/${template}/test-templates`).shuffle([...items]).slice(0, count);
}

/** The same steps with every `goto` on `site` (a plan that crosses to the other site). */
export function onSite(site: SiteName, steps: readonly WebPlanStep[]): WebPlanStep[] {
  return steps.map((step) => ('goto' in step ? { goto: step.goto, site } : step));
}

/** WebArena's placeholder for a site's base URL in an objective, filled in by the env (objective-text.ts). */
export const SITE_PLACEHOLDERS: Readonly<Record<SiteName, string>> = { shop: '__SHOP__', forum: '__FORUM__' };

/**
 * From anywhere to a product's page through the shop's search URL (`/search?q=…`, what the search
 * box opens): two actions, no typing, so a long multi-site plan stays inside the horizon.
 */
export function toProductBySearchUrl(name: string, site: SiteName): WebPlanStep[] {
  return [{ goto: `/search?q=${encodeURIComponent(name)}`, site }, { clickLink: name }];
}

/** From anywhere on the forum to a post: its sub-forum sorted by New, the right page, the title. */
export function toPostByUrl(post: { readonly forum: string; readonly title: string; readonly newPage: number }): WebPlanStep[] {
  const steps: WebPlanStep[] = [{ goto: `/f/${post.forum}?sort=new` }];
  for (let page = 1; page < post.newPage; page++) steps.push({ clickLink: 'Next page' });
  return [...steps, { clickLink: post.title }];
}
