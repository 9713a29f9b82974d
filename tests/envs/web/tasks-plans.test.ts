/**
 * Every web task's oracle plan, followed over HTTP on the real sites (plan-runner.ts): an info
 * plan ends on a page showing the expected answer and the evaluator takes it; a navigation plan
 * ends on the URL its evaluator expects; a state-change plan, run on its own fresh instance,
 * makes its evaluator give 1, and the same instance reset to the seeded state gives 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { allWebTasks, evaluateWebTask, type WebTask } from '../../../envs/web/tasks/index.ts';
import { runPlan } from './plan-runner.ts';
import { crossSiteTasks } from '../../../envs/web/tasks/cross-site.ts';
import { infeasibleTasks } from '../../../envs/web/tasks/infeasible.ts';
import { multiHopTasks } from '../../../envs/web/tasks/multi-hop.ts';

let server: SiteServer;
let shared: string;

beforeAll(async () => {
  server = await startSiteServer({ env: {} });
  shared = server.createInstance();
});
afterAll(() => server.close());

const decoded = (html: string) => html.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/<[^>]*>/g, ' ');
const ofKind = (kind: WebTask['kind']) => allWebTasks().filter((t) => t.kind === kind);
// The harder templates of issue 39 (multi-hop, multi-site, infeasible) are followed by tasks-breadth.test.ts.
const harder = new Set([...multiHopTasks(), ...crossSiteTasks(), ...infeasibleTasks()].map((t) => t.id));
const original = (t: WebTask) => !harder.has(t.id);

describe('web task plans over HTTP', () => {
  it('info plans end on a page that shows the answer, and the evaluator takes the plan answer', async () => {
    for (const task of ofKind('info').filter(original)) {
      const end = await runPlan(server, shared, task.site, task.startPath, task.plan);
      expect(end.answer, task.id).not.toBe('');
      expect(decoded(end.html), `${task.id}: answer on ${end.path}`).toContain(end.answer);
      expect(evaluateWebTask(task, { answer: end.answer, finalUrl: end.path }), task.id).toMatchObject({ reward: 1 });
      expect(evaluateWebTask(task, { answer: 'I could not find it', finalUrl: end.path }).reward, task.id).toBe(0);
    }
  });

  it('navigation plans end on the URL the evaluator expects, which the start page is not', async () => {
    for (const task of ofKind('nav')) {
      const end = await runPlan(server, shared, task.site, task.startPath, task.plan);
      expect(evaluateWebTask(task, { finalUrl: `http://any.host:1234${end.path}` }), `${task.id} ended on ${end.path}`).toMatchObject({ reward: 1 });
      expect(evaluateWebTask(task, { finalUrl: `${server.urls[task.site]}${task.startPath}` }).reward, task.id).toBe(0);
    }
  });

  it('state-change plans, each on its own instance, pass their evaluator; the reset instance fails it', async () => {
    const tasks = ofKind('state').filter(original);
    await Promise.all(tasks.map(async (task) => {
      const id = server.createInstance();
      try {
        await runPlan(server, id, task.site, task.startPath, task.plan);
        const done = evaluateWebTask(task, { finalUrl: '', db: server.database(id, task.site) });
        expect(done, task.id).toMatchObject({ reward: 1 });
        server.resetInstance(id);
        const fresh = evaluateWebTask(task, { finalUrl: '', db: server.database(id, task.site) });
        expect(fresh.reward, `${task.id}: ${fresh.reason}`).toBe(0);
      } finally {
        server.dropInstance(id);
      }
    }));
  });
});
