/** The forum site as a hono app over an instance's database (see ../site-app.ts). */
import type { Hono } from 'hono';
import { createSiteApp } from '../site-app.ts';
import type { SiteEnv } from '../site-env.ts';
import type { Database } from '../sqlite.ts';
import { browseRoutes } from './routes/browse.ts';
import { commentRoutes } from './routes/comment.ts';
import { submitRoutes } from './routes/submit.ts';
import { voteRoutes } from './routes/vote.ts';
import { FORUM_NAME } from './views/chrome.ts';

export function createForumApp(lookup: (instance: string) => Database | undefined): Hono<SiteEnv> {
  // Submit before browse: `/f/:forum/submit` would otherwise reach the post route as id "submit".
  return createSiteApp({ site: 'forum', title: FORUM_NAME, lookup, routes: [submitRoutes, browseRoutes, voteRoutes, commentRoutes] });
}
