/** GET routes of the forum: index, listings (all posts, one sub-forum), post pages and profiles. */
import type { Context, Hono } from 'hono';
import { pageCount, pageParam, wholeNumber } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import { commentsBy, commentsOf, forumByName, forums, karma, POST_SORTS, postById, postPage, userByName } from '../queries.ts';
import { notFoundView } from '../views/chrome.ts';
import { indexView, listingView } from '../views/listing.ts';
import { postView } from '../views/post.ts';
import { profileView } from '../views/profile.ts';

import { POSTS_PAGE_SIZE } from '../../page-sizes.ts';

export { POSTS_PAGE_SIZE };

const FLASH: Readonly<Record<string, string>> = {
  posted: 'Your post was created.',
  commented: 'Your comment was posted.',
  voted: 'Your vote was recorded.',
  unvoted: 'Your vote was removed.',
};

function sortOf(c: Context<SiteEnv>): string {
  const sort = c.req.query('sort') ?? '';
  return POST_SORTS[sort] ? sort : 'hot';
}

/** Renders a post page, shared by its GET route and the comment form when it fails validation. */
export function renderPost(c: Context<SiteEnv>, forum: string, id: number, form = { errors: [] as readonly string[], body: '' }, status: 200 | 422 = 200) {
  const db = c.get('db');
  const post = postById(db, id);
  if (!post || post.forum !== forum) return c.html(notFoundView(`There is no post ${id} in f/${forum}.`), 404);
  return c.html(postView(post, commentsOf(db, id), FLASH[c.req.query('done') ?? ''], form), status);
}

export function browseRoutes(app: Hono<SiteEnv>): void {
  app.get('/', (c) => c.html(indexView(forums(c.get('db')))));

  app.get('/all', (c) => {
    const sort = sortOf(c);
    const page = pageParam(c.req.query('page'));
    const { total, rows } = postPage(c.get('db'), '1', [], sort, POSTS_PAGE_SIZE, (page - 1) * POSTS_PAGE_SIZE);
    return c.html(listingView({ title: 'All posts', path: '/all', flash: FLASH[c.req.query('done') ?? ''], sort, page, pages: pageCount(total, POSTS_PAGE_SIZE), rows }));
  });

  app.get('/f/:forum', (c) => {
    const db = c.get('db');
    const forum = forumByName(db, c.req.param('forum'));
    if (!forum) return c.html(notFoundView(`There is no forum named ${c.req.param('forum')}.`), 404);
    const sort = sortOf(c);
    const page = pageParam(c.req.query('page'));
    const { total, rows } = postPage(db, 'p.forum_id = ?', [forum.id], sort, POSTS_PAGE_SIZE, (page - 1) * POSTS_PAGE_SIZE);
    return c.html(listingView({ title: `f/${forum.name}`, path: `/f/${forum.name}`, forum, flash: FLASH[c.req.query('done') ?? ''], sort, page, pages: pageCount(total, POSTS_PAGE_SIZE), rows }));
  });

  app.get('/f/:forum/:id', (c) => {
    const id = wholeNumber(c.req.param('id'));
    if (id === undefined) return c.html(notFoundView(`There is no post ${c.req.param('id')} in f/${c.req.param('forum')}.`), 404);
    return renderPost(c, c.req.param('forum'), id);
  });

  app.get('/user/:name', (c) => {
    const db = c.get('db');
    const user = userByName(db, c.req.param('name'));
    if (!user) return c.html(notFoundView(`There is no user named ${c.req.param('name')}.`), 404);
    const posts = postPage(db, 'p.user_id = ?', [user.id], 'new', 100, 0).rows;
    return c.html(profileView(user, karma(db, user.id), posts, commentsBy(db, user.id, 20)));
  });
}
