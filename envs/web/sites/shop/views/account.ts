/** The account page, the order history and one order's page. */
import { html } from 'hono/html';
import { money, pager, query, type Html } from '../../html.ts';
import type { Customer, Order, OrderItem } from '../queries.ts';
import { SHIPPING_METHODS } from '../schema.ts';
import { shopPage } from './chrome.ts';

function ordersTable(rows: readonly Order[]): Html {
  return html`<table><caption>Orders</caption><thead><tr><th>Order #</th><th>Date</th><th>Ship to</th><th>Items</th><th>Order total</th><th>Status</th></tr></thead><tbody>${rows.map(
    (o) => html`<tr><td><a href="/orders/${o.number}">${o.number}</a></td><td>${o.created_at.slice(0, 10)}</td><td>${o.ship_name}</td><td>${o.item_count}</td><td>${money(o.total_cents)}</td><td>${o.status}</td></tr>`,
  )}</tbody></table>`;
}

export function accountView(c: Customer, recent: readonly Order[]): Html {
  return shopPage({
    title: 'My Account',
    body: html`<section aria-labelledby="contact"><h2 id="contact">Contact information</h2><p>${c.first_name} ${c.last_name}</p><p>Email: ${c.email}</p><p>Phone: ${c.phone}</p></section>
<section aria-labelledby="address"><h2 id="address">Default shipping address</h2><address>${c.first_name} ${c.last_name}<br>${c.street}<br>${c.city}, ${c.region} ${c.postcode}</address></section>
<section aria-labelledby="recent"><h2 id="recent">Recent orders</h2>${recent.length === 0 ? html`<p>You have placed no orders.</p>` : ordersTable(recent)}<p><a href="/orders">View all orders</a></p></section>`,
  });
}

export function ordersView(rows: readonly Order[], page: number, pages: number, total: number): Html {
  return shopPage({
    title: 'My Orders',
    body: total === 0 ? html`<p>You have placed no orders.</p>` : html`<p>${total} orders</p>${ordersTable(rows)}${pager(page, pages, (p) => `/orders${query({ page: p === 1 ? undefined : p })}`)}`,
  });
}

export function orderView(order: Order, items: readonly OrderItem[], flash: string | undefined): Html {
  return shopPage({
    title: `Order # ${order.number}`,
    flash,
    body: html`<p>Status: ${order.status}</p><p>Order date: ${order.created_at}</p>
<section aria-labelledby="items"><h2 id="items">Items ordered</h2><table><thead><tr><th>Product</th><th>Price</th><th>Quantity</th><th>Subtotal</th></tr></thead><tbody>${items.map(
      (i) => html`<tr><td><a href="/product/${i.product_id}">${i.name}</a></td><td>${money(i.price_cents)}</td><td>${i.quantity}</td><td>${money(i.price_cents * i.quantity)}</td></tr>`,
    )}</tbody></table>
<p>Subtotal: ${money(order.subtotal_cents)}</p><p>Shipping: ${money(order.shipping_cents)} (${SHIPPING_METHODS[order.shipping_method]?.label ?? order.shipping_method})</p><p>Grand total: <strong>${money(order.total_cents)}</strong></p></section>
<section aria-labelledby="shipto"><h2 id="shipto">Shipping address</h2><address>${order.ship_name}<br>${order.street}<br>${order.city}, ${order.region} ${order.postcode}</address></section>
<p><a href="/orders">Back to My Orders</a></p>`,
  });
}
