/** The forum's state-change templates: vote on a post, comment on it, create a post. */
import type { Split } from '../../contract.ts';
import { forumEntities, forumSeededMax, toPost, uniquelyTitled, type ForumPost } from './forum-entities.ts';
import { draw, pools, type EntitySplit } from './seeded.ts';
import { makeTask, type DbEvaluator, type WebPlanStep, type WebTask } from './task.ts';

const state = (template: string, n: number, split: Split, objective: string, evaluator: DbEvaluator, plan: WebPlanStep[]) =>
  makeTask('forum', 'state', template, n, split, { objective, startPath: '/', evaluator, plan: [...plan, { stop: '' }] });

const COMMENTS: readonly string[] = [
  'Thanks, this was really helpful.', 'I had the same experience last year.', 'Could you share more details?', 'Great write-up, bookmarking this.',
  'I respectfully disagree with the second point.', 'This deserves more attention.', 'Following this thread for updates.',
];

const NEW_POSTS: readonly (readonly [string, string])[] = [
  ['Looking for recommendations this weekend', 'What would you suggest for a complete beginner?'],
  ['Weekly discussion thread', 'Share what you have been up to this week.'],
  ['Has anyone else noticed this?', 'I keep running into the same thing and wonder if it is just me.'],
  ['My favourite find of the year', 'I did not expect to enjoy it this much.'],
  ['Beginner question about getting started', 'Where is the best place to begin?'],
];

export function forumStateTasks(): WebTask[] {
  const { forums } = forumEntities();
  const seeded = forumSeededMax();
  const tasks: WebTask[] = [];
  // A post the user has not voted on, so one click casts the vote (a second would take it back).
  const unvoted = pools(uniquelyTitled().filter((p) => p.myVote === 0), (p) => p.test);
  const byPost = (template: string, counts: Record<EntitySplit, number>, make: (p: ForumPost, split: Split) => WebTask) => {
    const drawn = draw(template, unvoted, counts);
    for (const split of ['train', 'test'] as const) for (const p of drawn[split]) tasks.push(make(p, split));
  };

  byPost('upvote', { train: 12, test: 4 }, (p, split) =>
    state('upvote', p.id, split, `Upvote the post "${p.title}" in f/${p.forum}.`, { type: 'db', check: 'vote', postId: p.id, value: 1 }, [...toPost(p), { clickButton: `Upvote ${p.title}` }]));
  byPost('downvote', { train: 8, test: 3 }, (p, split) =>
    state('downvote', p.id, split, `Downvote the post "${p.title}" in f/${p.forum}.`, { type: 'db', check: 'vote', postId: p.id, value: -1 }, [...toPost(p), { clickButton: `Downvote ${p.title}` }]));
  byPost('comment', { train: 12, test: 4 }, (p, split) => {
    const body = COMMENTS[p.id % COMMENTS.length] as string;
    return state('comment', p.id, split, `Comment "${body}" on the post "${p.title}" in f/${p.forum}.`, { type: 'db', check: 'comment', afterCommentId: seeded.comment, postId: p.id, body },
      [...toPost(p), { fill: { label: 'Write a comment', value: body } }, { clickButton: 'Post comment' }]);
  });

  for (const f of forums) {
    NEW_POSTS.forEach(([title, body], i) => {
      const n = f.id * 10 + i;
      const full = `${title} (f/${f.name})`;
      tasks.push(state('create-post', n, f.test ? 'test' : 'train', `Create a post in f/${f.name} with the title "${full}" and the body "${body}".`,
        { type: 'db', check: 'post', afterPostId: seeded.post, forum: f.name, title: full, body },
        [{ goto: '/' }, { clickLink: `f/${f.name}` }, { clickLink: 'Create a post' }, { fill: { label: 'Title', value: full } }, { fill: { label: 'Body', value: body } }, { clickButton: 'Create post' }]));
    });
  }
  return tasks;
}
