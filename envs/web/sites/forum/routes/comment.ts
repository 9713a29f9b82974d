/** Comments: POST a comment on a post, and the reply page and form for answering a comment. */
import type { Hono } from 'hono';
import { SITE_NOW } from '../../clock.ts';
import { field, wholeNumber } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import type { Database } from '../../sqlite.ts';
import { commentsOf, postById } from '../queries.ts';
import { CURRENT_USER_ID } from '../schema.ts';
import { notFoundView } from '../views/chrome.ts';
import { replyView } from '../views/post.ts';
import { renderPost } from './browse.ts';

export const COMMENT_MAX = 5000;

export function commentErrors(body: string): string[] {
  if (body === '') return ['A comment cannot be empty.'];
  if (body.length > COMMENT_MAX) return [`A comment must be at most ${COMMENT_MAX} characters.`];
  return [];
}

function addComment(db: Database, postId: number, parentId: number | null, body: string): number {
  const { lastInsertRowid } = db.prepare('INSERT INTO comments (post_id, user_id, parent_id, body, created_at) VALUES (?, ?, ?, ?, ?)').run(postId, CURRENT_USER_ID, parentId, body, SITE_NOW);
  return Number(lastInsertRowid);
}

export function commentRoutes(app: Hono<SiteEnv>): void {
  app.post('/f/:forum/:id/comment', async (c) => {
    const forum = c.req.param('forum');
    const id = wholeNumber(c.req.param('id')) ?? -1;
    const post = postById(c.get('db'), id);
    if (!post || post.forum !== forum) return c.html(notFoundView(`There is no post ${c.req.param('id')} in f/${forum}.`), 404);
    const body = field(await c.req.parseBody(), 'body');
    const errors = commentErrors(body);
    if (errors.length > 0) return renderPost(c, forum, id, { errors, body }, 422);
    const commentId = addComment(c.get('db'), id, null, body);
    return c.redirect(`/f/${forum}/${id}?done=commented#comment-${commentId}`, 303);
  });

  const findParent = (db: Database, forum: string, id: string, cid: string) => {
    const post = postById(db, wholeNumber(id) ?? -1);
    const parent = post && post.forum === forum ? commentsOf(db, post.id).find((x) => x.id === wholeNumber(cid)) : undefined;
    return post && parent ? { post, parent } : undefined;
  };

  app.get('/f/:forum/:id/comment/:cid/reply', (c) => {
    const found = findParent(c.get('db'), c.req.param('forum'), c.req.param('id'), c.req.param('cid'));
    if (!found) return c.html(notFoundView(`There is no comment ${c.req.param('cid')} on post ${c.req.param('id')}.`), 404);
    return c.html(replyView(found.post, found.parent, { errors: [], body: '' }));
  });

  app.post('/f/:forum/:id/comment/:cid/reply', async (c) => {
    const found = findParent(c.get('db'), c.req.param('forum'), c.req.param('id'), c.req.param('cid'));
    if (!found) return c.html(notFoundView(`There is no comment ${c.req.param('cid')} on post ${c.req.param('id')}.`), 404);
    const body = field(await c.req.parseBody(), 'body');
    const errors = commentErrors(body);
    if (errors.length > 0) return c.html(replyView(found.post, found.parent, { errors, body }), 422);
    const commentId = addComment(c.get('db'), found.post.id, found.parent.id, body);
    return c.redirect(`/f/${found.post.forum}/${found.post.id}?done=commented#comment-${commentId}`, 303);
  });
}
