/**
 * The forum's seeded content: 8 sub-forums × 50 posts, 60 users, about 1,800 comments (some
 * replies) and 3,700 votes. Pure: the same seed gives the same rows in the same order.
 */
import { Rng } from '../../../rng.ts';
import { SITE_NOW } from '../clock.ts';
import type { Row } from '../snapshot.ts';
import { BIOS, COMMENTS, FORUMS, NAME_LEFT, NAME_RIGHT } from './words.ts';

export const FORUM_SEED = 'actorgym-web-forum-v1';
export const USER_COUNT = 60;
export const POSTS_PER_FORUM = 50;
const DAY = 86_400;

export interface ForumData {
  readonly users: readonly Row[];
  readonly forums: readonly Row[];
  readonly posts: readonly Row[];
  readonly comments: readonly Row[];
  readonly votes: readonly Row[];
}

function users(rng: Rng): Row[] {
  const rows: Row[] = [];
  const names = new Set<string>();
  while (rows.length < USER_COUNT) {
    const username = rows.length === 0 ? 'curious_otter' : `${rng.pick(NAME_LEFT)}_${rng.pick(NAME_RIGHT)}${rng.range(1, 100)}`;
    if (names.has(username)) continue;
    names.add(username);
    rows.push({ id: rows.length + 1, username, bio: rng.pick(BIOS), joined_at: SITE_NOW - rng.range(200, 1500) * DAY });
  }
  return rows;
}

/** Generates the forum's rows from a seed string (default: the bundled tasks' seed). */
export function generateForumData(seed: string = FORUM_SEED): ForumData {
  const rng = Rng.fromString(seed);
  const userRows = users(rng);
  const forums = FORUMS.map((f, i) => ({ id: i + 1, name: f.name, title: f.title, description: f.description }));
  const drafts: { row: { forum_id: number; user_id: number; title: string; body: string; created_at: number } }[] = [];
  FORUMS.forEach((f, i) => {
    for (let n = 0; n < POSTS_PER_FORUM; n++) {
      const author = rng.pick(userRows);
      const sentences = rng.shuffle([...f.sentences]).slice(0, rng.range(1, 4));
      drafts.push({
        row: {
          forum_id: i + 1,
          user_id: author.id as number,
          title: rng.pick(f.titles).replace('{t}', rng.pick(f.topics)),
          body: sentences.join(' '),
          created_at: SITE_NOW - rng.range(600, 180 * DAY),
        },
      });
    }
  });
  // Post ids grow with time across forums, as a real site's do.
  drafts.sort((a, b) => a.row.created_at - b.row.created_at);
  const posts: Row[] = [];
  const comments: Row[] = [];
  const votes: Row[] = [];
  for (const { row } of drafts) {
    const id = posts.length + 1;
    const appeal = rng.next();
    const voters = rng.shuffle(userRows.map((u) => u.id as number)).slice(0, rng.int(21));
    let score = 0;
    for (const voter of voters.sort((a, b) => a - b)) {
      const value = rng.next() < 0.35 + 0.6 * appeal ? 1 : -1;
      score += value;
      votes.push({ user_id: voter, post_id: id, value });
    }
    posts.push({ id, ...row, score });
    const count = rng.int(10);
    const ofThisPost: number[] = [];
    let at = row.created_at;
    for (let c = 0; c < count; c++) {
      at += rng.range(60, 2 * DAY);
      const commentId = comments.length + 1;
      const parent = ofThisPost.length > 0 && rng.int(3) === 0 ? rng.pick(ofThisPost) : null;
      comments.push({ id: commentId, post_id: id, user_id: rng.pick(userRows).id as number, parent_id: parent, body: rng.pick(COMMENTS), created_at: Math.min(at, SITE_NOW - 60) });
      ofThisPost.push(commentId);
    }
  }
  return { users: userRows, forums, posts, comments, votes };
}
