/** The forum's information-seeking templates: facts read off post pages, listings and profiles. */
import type { Split } from '../../contract.ts';
import { forumEntities, toPost, uniquelyTitled, type ForumPost, type ForumUser } from './forum-entities.ts';
import { draw, pools, type EntitySplit } from './seeded.ts';
import { asking } from './answer-forms.ts';
import { makeTask, type WebPlanStep, type WebTask } from './task.ts';

const info = (template: string, n: number, split: Split, objective: string, evaluator: WebTask['evaluator'], plan: WebPlanStep[]) =>
  makeTask('forum', 'info', template, n, split, { objective, startPath: '/', evaluator, plan });

export function forumInfoTasks(): WebTask[] {
  const { posts, forums, users } = forumEntities();
  const tasks: WebTask[] = [];
  const titled = pools(uniquelyTitled(), (p) => p.test);
  const byPost = (template: string, counts: Record<EntitySplit, number>, make: (p: ForumPost, split: Split) => WebTask) => {
    const drawn = draw(template, titled, counts);
    for (const split of ['train', 'test'] as const) for (const p of drawn[split]) tasks.push(make(p, split));
  };
  const byUser = (template: string, counts: Record<EntitySplit, number>, make: (u: ForumUser, split: Split) => WebTask) => {
    const drawn = draw(template, pools(users.filter((u) => u.id !== 1 && u.postCount > 0), (u) => u.test), counts);
    for (const split of ['train', 'test'] as const) for (const u of drawn[split]) tasks.push(make(u, split));
  };

  byPost('post-author', { train: 14, test: 5 }, (p, split) =>
    info('post-author', p.id, split, asking(`Who submitted the post "${p.title}" in f/${p.forum}?`, 'username'), { type: 'name', expected: p.author, among: 'forum/usernames' }, [...toPost(p), { stop: p.author }]));
  byPost('comment-count', { train: 14, test: 5 }, (p, split) =>
    info('comment-count', p.id, split, asking(`How many comments does the post "${p.title}" in f/${p.forum} have?`, 'number'), { type: 'number', expected: p.commentCount, tolerance: 0 }, [...toPost(p), { stop: String(p.commentCount) }]));

  for (const f of forums) {
    const ranked = posts.filter((p) => p.forum === f.name).sort((a, b) => b.score - a.score);
    // Only sub-forums where one post has strictly the highest score have an answer.
    const [top, second] = ranked;
    if (!top || !second || top.score === second.score) continue;
    tasks.push(info('top-post', f.id, f.test ? 'test' : 'train', asking(`What is the title of the highest-scoring post in f/${f.name}?`, 'title'), { type: 'name', expected: top.title, among: 'forum/titles' },
      [{ goto: '/' }, { clickLink: `f/${f.name}` }, { clickLink: 'Top' }, { stop: top.title }]));
  }

  const toUser = (u: ForumUser): WebPlanStep[] => [{ goto: `/user/${u.username}` }];
  byUser('user-karma', { train: 12, test: 4 }, (u, split) =>
    info('user-karma', u.id, split, asking(`What is the karma of the user ${u.username}?`, 'number'), { type: 'number', expected: u.karma, tolerance: 0 }, [...toUser(u), { stop: String(u.karma) }]));
  byUser('user-joined', { train: 10, test: 4 }, (u, split) =>
    info('user-joined', u.id, split, asking(`On what date did the user ${u.username} join the forum?`, 'date'), { type: 'date', expected: u.joined }, [...toUser(u), { stop: u.joined }]));
  byUser('user-post-count', { train: 10, test: 4 }, (u, split) =>
    info('user-post-count', u.id, split, asking(`How many posts has the user ${u.username} submitted?`, 'number'), { type: 'number', expected: u.postCount, tolerance: 0 }, [...toUser(u), { stop: String(u.postCount) }]));
  return tasks;
}
