/** The shop site as a hono app over an instance's database (see ../site-app.ts). */
import type { Hono } from 'hono';
import { createSiteApp } from '../site-app.ts';
import type { SiteEnv } from '../site-env.ts';
import type { Database } from '../sqlite.ts';
import { accountRoutes } from './routes/account.ts';
import { cartRoutes } from './routes/cart.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { checkoutRoutes } from './routes/checkout.ts';
import { reviewRoutes } from './routes/reviews.ts';
import { SHOP_NAME } from './views/chrome.ts';

export function createShopApp(lookup: (instance: string) => Database | undefined): Hono<SiteEnv> {
  return createSiteApp({ site: 'shop', title: SHOP_NAME, lookup, routes: [catalogRoutes, reviewRoutes, cartRoutes, checkoutRoutes, accountRoutes] });
}
