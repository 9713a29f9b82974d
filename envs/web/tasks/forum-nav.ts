/** The forum's navigation templates: reach a sub-forum, a sorted listing, a post, a profile or the post form. */
import type { Split } from '../../contract.ts';
import { forumEntities, toPost, uniquelyTitled } from './forum-entities.ts';
import { draw, pools } from './seeded.ts';
import { makeTask, type UrlEvaluator, type WebPlanStep, type WebTask } from './task.ts';

const nav = (template: string, n: number, split: Split, objective: string, evaluator: UrlEvaluator, plan: WebPlanStep[]) =>
  makeTask('forum', 'nav', template, n, split, { objective, startPath: '/', evaluator, plan: [...plan, { stop: '' }] });

export function forumNavTasks(): WebTask[] {
  const { forums, users } = forumEntities();
  const tasks: WebTask[] = [];
  for (const f of forums) {
    const split: Split = f.test ? 'test' : 'train';
    const toForum: WebPlanStep[] = [{ goto: '/' }, { clickLink: `f/${f.name}` }];
    tasks.push(nav('forum-page', f.id, split, `Go to the f/${f.name} sub-forum.`, { type: 'url_match', path: `/f/${f.name}`, ignoreQuery: ['sort'] }, toForum));
    const [sort, label] = f.id % 2 === 0 ? ['top', 'Top'] : ['new', 'New'];
    tasks.push(nav('sorted-forum', f.id, split, `Show the posts of f/${f.name} sorted by ${label}.`, { type: 'url_match', path: `/f/${f.name}`, query: { sort } }, [...toForum, { clickLink: label }]));
    tasks.push(nav('submit-page', f.id, split, `Open the form for creating a new post in f/${f.name}.`, { type: 'url_match', path: `/f/${f.name}/submit` }, [...toForum, { clickLink: 'Create a post' }]));
  }
  const drawn = draw('post-page', pools(uniquelyTitled(), (p) => p.test), { train: 14, test: 5 });
  for (const split of ['train', 'test'] as const) {
    for (const p of drawn[split]) tasks.push(nav('post-page', p.id, split, `Open the post "${p.title}" in f/${p.forum}.`, { type: 'url_match', path: `/f/${p.forum}/${p.id}` }, toPost(p)));
  }
  // Reach a profile the way a reader would: from one of the user's posts, by the author link.
  const withTitled = new Map(uniquelyTitled().map((p) => [p.author, p]));
  const drawnUsers = draw('user-page', pools(users.filter((u) => u.id !== 1 && withTitled.has(u.username)), (u) => u.test), { train: 10, test: 3 });
  for (const split of ['train', 'test'] as const) {
    for (const u of drawnUsers[split]) {
      const post = withTitled.get(u.username);
      const plan: WebPlanStep[] = post ? [...toPost(post), { clickLink: u.username }] : [{ goto: `/user/${u.username}` }];
      tasks.push(nav('user-page', u.id, split, `Go to the profile page of the user ${u.username}.`, { type: 'url_match', path: `/user/${u.username}` }, plan));
    }
  }
  return tasks;
}
