/** Creating a post: GET the form of a sub-forum, POST it (title and body validated). */
import type { Hono } from 'hono';
import { SITE_NOW } from '../../clock.ts';
import { field } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import { forumByName } from '../queries.ts';
import { CURRENT_USER_ID } from '../schema.ts';
import { notFoundView } from '../views/chrome.ts';
import { submitView } from '../views/submit.ts';

export const TITLE_MAX = 300;
export const BODY_MAX = 10_000;

export function postErrors(values: Readonly<Record<string, string>>): string[] {
  const errors: string[] = [];
  const title = values.title ?? '';
  const body = values.body ?? '';
  if (title === '') errors.push('Title is required.');
  else if (title.length < 5) errors.push('Title must be at least 5 characters.');
  else if (title.length > TITLE_MAX) errors.push(`Title must be at most ${TITLE_MAX} characters.`);
  if (body === '') errors.push('Body is required.');
  else if (body.length > BODY_MAX) errors.push(`Body must be at most ${BODY_MAX} characters.`);
  return errors;
}

export function submitRoutes(app: Hono<SiteEnv>): void {
  app.get('/f/:forum/submit', (c) => {
    const forum = forumByName(c.get('db'), c.req.param('forum'));
    if (!forum) return c.html(notFoundView(`There is no forum named ${c.req.param('forum')}.`), 404);
    return c.html(submitView(forum, {}, []));
  });

  app.post('/f/:forum/submit', async (c) => {
    const db = c.get('db');
    const forum = forumByName(db, c.req.param('forum'));
    if (!forum) return c.html(notFoundView(`There is no forum named ${c.req.param('forum')}.`), 404);
    const form = await c.req.parseBody();
    const values = { title: field(form, 'title'), body: field(form, 'body') };
    const errors = postErrors(values);
    if (errors.length > 0) return c.html(submitView(forum, values, errors), 422);
    const { lastInsertRowid } = db.prepare('INSERT INTO posts (forum_id, user_id, title, body, created_at, score) VALUES (?, ?, ?, ?, ?, 0)').run(forum.id, CURRENT_USER_ID, values.title, values.body, SITE_NOW);
    return c.redirect(`/f/${forum.name}/${Number(lastInsertRowid)}?done=posted`, 303);
  });
}
