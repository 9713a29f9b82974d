/** The hono environment both sites' apps share: the request's instance database, set by middleware. */
import type { Database } from './sqlite.ts';

export interface SiteEnv {
  Variables: { db: Database };
}
