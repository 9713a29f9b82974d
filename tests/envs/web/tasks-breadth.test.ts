/**
 * The harder web templates (issue 39, item 4): multi-hop, across both sites, infeasible, and the
 * `test-templates` split of held-out templates. Every plan is followed over HTTP on the real sites
 * (plan-runner.ts) and scored by its evaluator, which must take the plan's answer and nothing
 * else: `N/A` fails a feasible task, and any other answer fails an infeasible one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { crossSiteTasks } from '../../../envs/web/tasks/cross-site.ts';
import { infeasibleTasks } from '../../../envs/web/tasks/infeasible.ts';
import { multiHopTasks } from '../../../envs/web/tasks/multi-hop.ts';
import { objectiveText } from '../../../envs/web/tasks/objective-text.ts';
import { taskSites } from '../../../envs/web/tasks/task.ts';
import { allWebTasks, evaluateWebTask, webCategoryOf, webTask, webTasks, type WebTask } from '../../../envs/web/tasks/index.ts';
import { webDefinition } from '../../../envs/web/index.ts';
import { runPlan } from './plan-runner.ts';

const harder = () => [...multiHopTasks(), ...crossSiteTasks(), ...infeasibleTasks()];
const actions = (task: WebTask) => task.plan.length;

describe('the held-out-template split', () => {
  it('shares no template with train, and no id with train or test', () => {
    const trainTemplates = new Set(allWebTasks().filter((t) => t.split === 'train').map((t) => t.template));
    const held = webTasks('test-templates');
    expect(held.length).toBeGreaterThanOrEqual(40);
    expect(held.map((id) => webTask(id).template).filter((t) => trainTemplates.has(t))).toEqual([]);
    const others = new Set([...webTasks('train'), ...webTasks('test')]);
    expect(held.filter((id) => others.has(id))).toEqual([]);
    expect(webDefinition.spec.splits['test-templates']).toBe(held.length);
    expect(webDefinition.tasks('test-templates')).toEqual(held);
  });

  it('holds multi-hop, multi-site and infeasible tasks in every split', () => {
    for (const split of ['train', 'test', 'test-templates'] as const) {
      const tasks = webTasks(split).map(webTask);
      expect(tasks.filter((t) => taskSites(t).length === 2).length, split).toBeGreaterThanOrEqual(4);
      expect(tasks.filter((t) => t.kind === 'infeasible').length, split).toBeGreaterThanOrEqual(6);
      expect(tasks.filter((t) => multiHopTasks().some((m) => m.id === t.id)).length, split).toBeGreaterThanOrEqual(4);
    }
  });

  it('keeps the first templates\' tasks first in train and test, in their order', () => {
    for (const split of ['train', 'test'] as const) {
      const ids = webTasks(split);
      const firstHarder = ids.findIndex((id) => harder().some((t) => t.id === id));
      expect(ids.slice(firstHarder).every((id) => harder().some((t) => t.id === id)), split).toBe(true);
    }
  });
});

describe('the harder templates', () => {
  it('declare their sites and categories: multi-site tasks name the other site by placeholder', () => {
    for (const task of harder()) {
      expect(task.category, task.id).toBe(webCategoryOf(task.id));
      expect(task.objective, task.id).toMatch(/^[A-Z].*[.?]$/);
      if (taskSites(task).length === 1) continue;
      expect(task.id.startsWith('multi/'), task.id).toBe(true);
      const other = taskSites(task)[1] as 'shop' | 'forum';
      expect(task.objective, task.id).toContain(other === 'shop' ? '__SHOP__' : '__FORUM__');
      expect(task.plan.some((s) => 'goto' in s && s.site === other), `${task.id} visits ${other}`).toBe(true);
      const filled = objectiveText(task.objective, { shop: 'http://127.0.0.1:1', forum: 'http://127.0.0.1:2' });
      expect(filled, task.id).not.toMatch(/__[A-Z]+__/);
      expect(filled, task.id).toContain(other === 'shop' ? 'the shop at http://127.0.0.1:1' : 'the forum at http://127.0.0.1:2');
    }
  });

  it('multi-hop tasks take four actions or more', () => {
    for (const task of multiHopTasks()) expect(actions(task), task.id).toBeGreaterThanOrEqual(4);
  });
});

describe('plans of the harder templates over HTTP', () => {
  let server: SiteServer;
  let shared: string;
  beforeAll(async () => {
    server = await startSiteServer({ env: {} });
    shared = server.createInstance();
  });
  afterAll(() => server.close());

  it('answer tasks: the plan\'s answer scores 1; N/A fails a feasible one, anything else an infeasible one', async () => {
    for (const task of harder().filter((t) => t.kind === 'info' || t.kind === 'infeasible')) {
      const end = await runPlan(server, shared, task.site, task.startPath, task.plan);
      expect(evaluateWebTask(task, { answer: end.answer, finalUrl: end.path }), task.id).toMatchObject({ reward: 1 });
      if (task.kind === 'infeasible') {
        expect(end.answer).toBe('N/A');
        for (const wrong of ['0', 'none', 'It is N/A', 'There is no such product.', '']) expect(evaluateWebTask(task, { answer: wrong, finalUrl: end.path }).reward, `${task.id}: ${wrong}`).toBe(0);
        expect(evaluateWebTask(task, { answer: 'n/a.', finalUrl: end.path }).reward, task.id).toBe(1);
      } else {
        for (const wrong of ['N/A', 'n/a', 'N/A.']) expect(evaluateWebTask(task, { answer: wrong, finalUrl: end.path }).reward, `${task.id}: ${wrong}`).toBe(0);
      }
    }
  }, 180_000); // about 10 s on a quiet machine; the shared one is often at load 50 and more

  it('state tasks across sites: the plan passes the evaluator on a fresh instance; the reset instance fails it', async () => {
    for (const task of harder().filter((t) => t.kind === 'state')) {
      const id = server.createInstance();
      try {
        await runPlan(server, id, task.site, task.startPath, task.plan);
        expect(evaluateWebTask(task, { finalUrl: '', db: server.database(id, task.site) }), task.id).toMatchObject({ reward: 1 });
        server.resetInstance(id);
        expect(evaluateWebTask(task, { finalUrl: '', db: server.database(id, task.site) }).reward, task.id).toBe(0);
      } finally {
        server.dropInstance(id);
      }
    }
  }, 180_000);
});
