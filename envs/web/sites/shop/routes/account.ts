/** The logged-in customer's pages: account, order history and one order. */
import type { Hono } from 'hono';
import { pageCount, pageParam } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import { currentCustomer, orderByNumber, ordersPage } from '../queries.ts';
import { accountView, ordersView, orderView } from '../views/account.ts';
import { notFoundView } from '../views/chrome.ts';

import { ORDERS_PAGE_SIZE } from '../../page-sizes.ts';

export { ORDERS_PAGE_SIZE };

export function accountRoutes(app: Hono<SiteEnv>): void {
  app.get('/account', (c) => {
    const db = c.get('db');
    return c.html(accountView(currentCustomer(db), ordersPage(db, 3, 0).rows));
  });

  app.get('/orders', (c) => {
    const page = pageParam(c.req.query('page'));
    const { total, rows } = ordersPage(c.get('db'), ORDERS_PAGE_SIZE, (page - 1) * ORDERS_PAGE_SIZE);
    return c.html(ordersView(rows, page, pageCount(total, ORDERS_PAGE_SIZE), total));
  });

  app.get('/orders/:number', (c) => {
    const found = orderByNumber(c.get('db'), c.req.param('number'));
    if (!found) return c.html(notFoundView(`You have no order number ${c.req.param('number')}.`), 404);
    const flash = c.req.query('done') === 'placed' ? `Thank you for your order. Your order number is ${found.order.number}.` : undefined;
    return c.html(orderView(found.order, found.items, flash));
  });
}
