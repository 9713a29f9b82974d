/**
 * The web env's task list: every template of both sites, built once from the seeded content,
 * split into train and test. Tests hold out whole entities (two categories, two sub-forums, a
 * quarter of products and users, two of the customer's orders), so a test task never names
 * something a train task of the same template does, and no id is in both splits. A third split,
 * `test-templates`, holds out whole templates: none of its templates has a train task.
 */
import { EnvError, type Split } from '../../contract.ts';
import { SITE_NAMES } from '../site-urls.ts';
import { forumInfoTasks } from './forum-info.ts';
import { forumNavTasks } from './forum-nav.ts';
import { forumStateTasks } from './forum-state.ts';
import { shopInfoTasks } from './shop-info.ts';
import { shopNavTasks } from './shop-nav.ts';
import { shopStateTasks } from './shop-state.ts';
import { WEB_TASK_KINDS, type WebTask } from './task.ts';
import { multiHopTasks } from './multi-hop.ts';
import { crossSiteTasks } from './cross-site.ts';
import { infeasibleTasks } from './infeasible.ts';

interface Pool {
  readonly byId: ReadonlyMap<string, WebTask>;
  readonly splits: Readonly<Record<Split, readonly string[]>>;
}

let cached: Pool | undefined;

function pool(): Pool {
  if (cached) return cached;
  const all = [...shopInfoTasks(), ...shopNavTasks(), ...shopStateTasks(), ...forumInfoTasks(), ...forumNavTasks(), ...forumStateTasks()];
  // The harder templates after the first ones, so the first tasks of each split keep their order.
  all.push(...multiHopTasks(), ...crossSiteTasks(), ...infeasibleTasks());
  const byId = new Map<string, WebTask>();
  for (const task of all) {
    if (byId.has(task.id)) throw new Error(`web tasks: two tasks share the id ${task.id}`);
    byId.set(task.id, Object.freeze(task));
  }
  const ids = (split: Split) => Object.freeze(all.filter((t) => t.split === split).map((t) => t.id));
  cached = { byId, splits: { train: ids('train'), test: ids('test'), 'test-templates': ids('test-templates') } };
  return cached;
}

/** Task ids of a split, in a fixed order (grouped by site, kind and template). */
export function webTasks(split: Split): readonly string[] {
  return pool().splits[split];
}

const ID_HINT = 'expected <site>/<kind>/<template>/<n> (site shop, forum or multi) such as shop/info/cheapest-in-category/3, e.g. one of webTasks(\'test\')';

/** The task of an id; a `TASK_UNKNOWN` EnvError for anything else. */
export function webTask(id: string): WebTask {
  const task = typeof id === 'string' ? pool().byId.get(id) : undefined;
  if (!task) throw new EnvError('TASK_UNKNOWN', `unknown web task "${String(id)}"; ${ID_HINT}`);
  return task;
}

/** Every task of both splits, for tests and tools. */
export function allWebTasks(): readonly WebTask[] {
  return [...pool().byId.values()];
}

/**
 * The evaluation category of a task id, `${site}/${kind}` (`shop/info`, `multi/state` for a
 * task across both sites), read from the id without
 * building the task list. The id's shape is checked, not its membership of a split.
 */
export function webCategoryOf(id: string): string {
  const parts = typeof id === 'string' ? id.split('/') : [];
  const [site, kind, template, n] = parts;
  const ok = parts.length === 4 && (SITE_NAMES.includes(site as never) || site === 'multi') && WEB_TASK_KINDS.includes(kind as never) && /^[a-z-]+$/.test(template ?? '') && /^\d+$/.test(n ?? '');
  if (!ok) throw new EnvError('TASK_UNKNOWN', `unknown web task "${String(id)}"; ${ID_HINT}`);
  return `${site}/${kind}`;
}
