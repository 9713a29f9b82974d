/** Typed reads of the forum's database, shared by its routes (and readable by evaluators). */
import { SITE_NOW } from '../clock.ts';
import type { Database } from '../sqlite.ts';
import { CURRENT_USER_ID } from './schema.ts';

export interface Forum { id: number; name: string; title: string; description: string; post_count: number }
export interface PostSummary { id: number; forum: string; title: string; author: string; created_at: number; score: number; comment_count: number; my_vote: number }
export interface Post extends PostSummary { body: string }
export interface Comment { id: number; parent_id: number | null; author: string; body: string; created_at: number }
export interface User { id: number; username: string; bio: string; joined_at: number }

/** Listing orders, whitelisted: `?sort=` picks one, never raw SQL. Hot decays a post's score with age, as Reddit's does. */
export const POST_SORTS: Readonly<Record<string, { readonly label: string; readonly sql: string }>> = {
  hot: { label: 'Hot', sql: `(p.score + 1) / (((${SITE_NOW} - p.created_at) / 3600.0 + 2) * ((${SITE_NOW} - p.created_at) / 3600.0 + 2)) DESC, p.id DESC` },
  new: { label: 'New', sql: 'p.created_at DESC, p.id DESC' },
  top: { label: 'Top', sql: 'p.score DESC, p.id DESC' },
};

const SUMMARY = `p.id, f.name AS forum, p.title, u.username AS author, p.created_at, p.score,
  (SELECT count(*) FROM comments c WHERE c.post_id = p.id) AS comment_count,
  coalesce((SELECT v.value FROM votes v WHERE v.post_id = p.id AND v.user_id = ${CURRENT_USER_ID}), 0) AS my_vote`;
const FROM = 'posts p JOIN forums f ON f.id = p.forum_id JOIN users u ON u.id = p.user_id';

export function forums(db: Database): Forum[] {
  return db.prepare('SELECT f.*, (SELECT count(*) FROM posts p WHERE p.forum_id = f.id) AS post_count FROM forums f ORDER BY f.name').all() as Forum[];
}

export function forumByName(db: Database, name: string): Forum | undefined {
  return forums(db).find((f) => f.name === name);
}

/** A page of posts matching `where` (SQL over `p`), in a whitelisted order. */
export function postPage(db: Database, where: string, params: readonly unknown[], sort: string, limit: number, offset: number): { total: number; rows: PostSummary[] } {
  const order = (POST_SORTS[sort] ?? POST_SORTS.hot)?.sql ?? 'p.id DESC';
  const total = (db.prepare(`SELECT count(*) AS n FROM posts p WHERE ${where}`).get(...params) as { n: number }).n;
  const rows = db.prepare(`SELECT ${SUMMARY} FROM ${FROM} WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, limit, offset) as PostSummary[];
  return { total, rows };
}

export function postById(db: Database, id: number): Post | undefined {
  return db.prepare(`SELECT ${SUMMARY}, p.body FROM ${FROM} WHERE p.id = ?`).get(id) as Post | undefined;
}

export function commentsOf(db: Database, postId: number): Comment[] {
  return db.prepare('SELECT c.id, c.parent_id, u.username AS author, c.body, c.created_at FROM comments c JOIN users u ON u.id = c.user_id WHERE c.post_id = ? ORDER BY c.created_at, c.id').all(postId) as Comment[];
}

export function userByName(db: Database, username: string): User | undefined {
  return db.prepare('SELECT * FROM users WHERE username = ?').get(username) as User | undefined;
}

export function currentUser(db: Database): User {
  return db.prepare('SELECT * FROM users WHERE id = ?').get(CURRENT_USER_ID) as User;
}

export function commentsBy(db: Database, userId: number, limit: number): (Comment & { post_id: number; post_title: string; forum: string })[] {
  return db.prepare(`SELECT c.id, c.parent_id, u.username AS author, c.body, c.created_at, p.id AS post_id, p.title AS post_title, f.name AS forum
    FROM comments c JOIN users u ON u.id = c.user_id JOIN posts p ON p.id = c.post_id JOIN forums f ON f.id = p.forum_id
    WHERE c.user_id = ? ORDER BY c.created_at DESC, c.id DESC LIMIT ?`).all(userId, limit) as (Comment & { post_id: number; post_title: string; forum: string })[];
}

/** The sum of the scores of a user's posts. */
export function karma(db: Database, userId: number): number {
  return (db.prepare('SELECT coalesce(sum(score), 0) AS k FROM posts WHERE user_id = ?').get(userId) as { k: number }).k;
}
