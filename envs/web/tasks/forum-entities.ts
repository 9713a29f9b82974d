/** Typed views of the seeded forum rows that the forum's task templates use, and their plan steps. */
import { isoDay } from '../sites/clock.ts';
import { CURRENT_USER_ID } from '../sites/forum/schema.ts';
import { POSTS_PAGE_SIZE } from '../sites/page-sizes.ts';
import { forumData, heldOut, TEST_FORUMS } from './seeded.ts';
import type { WebPlanStep } from './task.ts';

export interface ForumPost {
  readonly id: number;
  readonly forum: string;
  readonly title: string;
  readonly author: string;
  readonly score: number;
  readonly commentCount: number;
  /** The logged-in user's seeded vote (0: none). */
  readonly myVote: number;
  /** 1-based page of the post in its sub-forum sorted by New. */
  readonly newPage: number;
  readonly test: boolean;
}

export interface ForumSub { readonly id: number; readonly name: string; readonly test: boolean }
export interface ForumUser { readonly id: number; readonly username: string; readonly joined: string; readonly karma: number; readonly postCount: number; readonly test: boolean }

let cached: { posts: ForumPost[]; forums: ForumSub[]; users: ForumUser[] } | undefined;

export function forumEntities(): { posts: ForumPost[]; forums: ForumSub[]; users: ForumUser[] } {
  if (cached) return cached;
  const data = forumData();
  const forumName = new Map(data.forums.map((f) => [f.id as number, f.name as string]));
  const userName = new Map(data.users.map((u) => [u.id as number, u.username as string]));
  const comments = new Map<number, number>();
  for (const c of data.comments) comments.set(c.post_id as number, (comments.get(c.post_id as number) ?? 0) + 1);
  const myVotes = new Map(data.votes.filter((v) => v.user_id === CURRENT_USER_ID).map((v) => [v.post_id as number, v.value as number]));
  // The New order of the forum's listing: created_at, then id, both descending.
  const rank = new Map<number, number>();
  for (const f of data.forums) {
    const ordered = data.posts.filter((p) => p.forum_id === f.id).sort((a, b) => (b.created_at as number) - (a.created_at as number) || (b.id as number) - (a.id as number));
    ordered.forEach((p, i) => rank.set(p.id as number, i));
  }
  const posts = data.posts.map((p): ForumPost => {
    const forum = forumName.get(p.forum_id as number) as string;
    return {
      id: p.id as number, forum, title: p.title as string, author: userName.get(p.user_id as number) as string, score: p.score as number,
      commentCount: comments.get(p.id as number) ?? 0, myVote: myVotes.get(p.id as number) ?? 0,
      newPage: Math.floor((rank.get(p.id as number) ?? 0) / POSTS_PAGE_SIZE) + 1, test: TEST_FORUMS.includes(forum),
    };
  });
  const forums = data.forums.map((f) => ({ id: f.id as number, name: f.name as string, test: TEST_FORUMS.includes(f.name as string) }));
  const users = data.users.map((u): ForumUser => {
    const own = posts.filter((p) => p.author === u.username);
    return { id: u.id as number, username: u.username as string, joined: isoDay(u.joined_at as number), karma: own.reduce((s, p) => s + p.score, 0), postCount: own.length, test: heldOut(`user/${String(u.username)}`) };
  });
  cached = { posts, forums, users };
  return cached;
}

/** Posts whose title no other post shares: a link with that text names one post only. */
export function uniquelyTitled(): ForumPost[] {
  const { posts } = forumEntities();
  const counts = new Map<string, number>();
  for (const p of posts) counts.set(p.title, (counts.get(p.title) ?? 0) + 1);
  return posts.filter((p) => counts.get(p.title) === 1);
}

/** Seeded maxima: rows with larger ids were written during an episode. */
export function forumSeededMax(): { post: number; comment: number } {
  const data = forumData();
  return { post: data.posts.length, comment: data.comments.length };
}

/** From anywhere on the forum to a post's page: the sub-forum, sorted by New, the right page, the title. */
export function toPost(p: ForumPost): WebPlanStep[] {
  const steps: WebPlanStep[] = [{ goto: '/' }, { clickLink: `f/${p.forum}` }, { clickLink: 'New' }];
  for (let page = 1; page < p.newPage; page++) steps.push({ clickLink: 'Next page' });
  return [...steps, { clickLink: p.title }];
}
