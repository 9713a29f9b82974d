/**
 * The objective an agent reads: the task's objective with WebArena's site placeholders
 * (`__SHOP__`, `__FORUM__`) replaced by the sites' base URLs, so a multi-site task can say where
 * the other site is without the task list knowing the ports.
 */
import type { SiteName } from '../site-urls.ts';
import { SITE_PLACEHOLDERS } from './breadth-common.ts';

export function objectiveText(objective: string, urls: Readonly<Record<SiteName, string>>): string {
  let text = objective;
  for (const [site, placeholder] of Object.entries(SITE_PLACEHOLDERS) as [SiteName, string][]) text = text.split(placeholder).join(urls[site]);
  return text;
}
