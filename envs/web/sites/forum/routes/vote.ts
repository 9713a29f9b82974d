/**
 * POST /f/:forum/:id/vote: the logged-in user's up or down vote on a post. Voting the same way
 * again takes the vote back (as Postmill and Reddit do); the other way switches it. The post's
 * score moves with it in one transaction.
 */
import type { Hono } from 'hono';
import { field, wholeNumber } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import type { Database } from '../../sqlite.ts';
import { postById } from '../queries.ts';
import { CURRENT_USER_ID } from '../schema.ts';
import { notFoundView } from '../views/chrome.ts';

/** Applies a vote and returns the user's vote afterwards (-1, 0 or 1). */
export function castVote(db: Database, postId: number, value: 1 | -1): number {
  return db.transaction(() => {
    const old = (db.prepare('SELECT value FROM votes WHERE user_id = ? AND post_id = ?').get(CURRENT_USER_ID, postId) as { value: number } | undefined)?.value ?? 0;
    const next = old === value ? 0 : value;
    if (next === 0) db.prepare('DELETE FROM votes WHERE user_id = ? AND post_id = ?').run(CURRENT_USER_ID, postId);
    else db.prepare('INSERT INTO votes (user_id, post_id, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value').run(CURRENT_USER_ID, postId, next);
    db.prepare('UPDATE posts SET score = score + ? WHERE id = ?').run(next - old, postId);
    return next;
  })();
}

/** A same-site path to return to, or undefined (so `next` can never send the browser elsewhere). */
function localPath(text: string): string | undefined {
  return text.startsWith('/') && !text.startsWith('//') && !text.includes('\\') ? text : undefined;
}

export function voteRoutes(app: Hono<SiteEnv>): void {
  app.post('/f/:forum/:id/vote', async (c) => {
    const db = c.get('db');
    const id = wholeNumber(c.req.param('id'));
    const post = id === undefined ? undefined : postById(db, id);
    if (!post || post.forum !== c.req.param('forum')) return c.html(notFoundView(`There is no post ${c.req.param('id')} in f/${c.req.param('forum')}.`), 404);
    const body = await c.req.parseBody();
    const direction = field(body, 'direction');
    if (direction !== 'up' && direction !== 'down') return c.html(notFoundView(`A vote's direction must be up or down, not '${direction}'.`), 422);
    const now = castVote(db, post.id, direction === 'up' ? 1 : -1);
    const back = localPath(field(body, 'next')) ?? `/f/${post.forum}/${post.id}`;
    const [path, hash] = back.split('#', 2);
    const separator = (path ?? '').includes('?') ? '&' : '?';
    return c.redirect(`${path}${separator}done=${now === 0 ? 'unvoted' : 'voted'}${hash ? `#${hash}` : ''}`, 303);
  });
}
