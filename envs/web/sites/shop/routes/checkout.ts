/** Checkout: the address form, validation, and placing the order (stock taken, cart emptied). */
import type { Hono } from 'hono';
import { SITE_NOW, isoMinute } from '../../clock.ts';
import { field } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import type { Database } from '../../sqlite.ts';
import { cartLines, currentCustomer, type CartLine } from '../queries.ts';
import { CURRENT_CUSTOMER_ID, orderNumber, SHIPPING_METHODS } from '../schema.ts';
import { ADDRESS_FIELDS, checkoutView, subtotal } from '../views/cart.ts';

export function checkoutErrors(values: Readonly<Record<string, string>>, lines: readonly CartLine[]): string[] {
  const errors: string[] = [];
  if (lines.length === 0) errors.push('Your cart is empty.');
  for (const [name, label] of ADDRESS_FIELDS) {
    if ((values[name] ?? '') === '') errors.push(`${label} is required.`);
    else if ((values[name] ?? '').length > 100) errors.push(`${label} must be at most 100 characters.`);
  }
  if (values.region && !/^[A-Za-z]{2}$/.test(values.region)) errors.push('State must be two letters, e.g. OR.');
  if (values.postcode && !/^\d{5}$/.test(values.postcode)) errors.push('ZIP code must be 5 digits.');
  if (!SHIPPING_METHODS[values.shipping_method ?? '']) errors.push('Choose a shipping method.');
  for (const line of lines) if (line.quantity > line.stock) errors.push(`${line.name}: only ${line.stock} left in stock.`);
  return errors;
}

/** Writes the order, its lines and the stock change, and empties the cart; returns the order number. */
function placeOrder(db: Database, values: Readonly<Record<string, string>>, lines: readonly CartLine[]): string {
  return db.transaction(() => {
    const shipping = SHIPPING_METHODS[values.shipping_method ?? '']?.cents ?? 0;
    const sub = subtotal(lines);
    const { lastInsertRowid } = db.prepare(`INSERT INTO orders (number, customer_id, status, created_at, ship_name, street, city, region, postcode, shipping_method, subtotal_cents, shipping_cents, total_cents)
      VALUES ('', ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      CURRENT_CUSTOMER_ID, isoMinute(SITE_NOW), values.ship_name, values.street, values.city, (values.region ?? '').toUpperCase(), values.postcode, values.shipping_method, sub, shipping, sub + shipping,
    );
    const id = Number(lastInsertRowid);
    const number = orderNumber(id);
    db.prepare('UPDATE orders SET number = ? WHERE id = ?').run(number, id);
    const item = db.prepare('INSERT INTO order_items (order_id, product_id, name, price_cents, quantity) VALUES (?, ?, ?, ?, ?)');
    const take = db.prepare('UPDATE products SET stock = stock - ? WHERE id = ?');
    for (const l of lines) {
      item.run(id, l.product_id, l.name, l.price_cents, l.quantity);
      take.run(l.quantity, l.product_id);
    }
    db.prepare('DELETE FROM cart_items WHERE customer_id = ?').run(CURRENT_CUSTOMER_ID);
    return number;
  })();
}

export function checkoutRoutes(app: Hono<SiteEnv>): void {
  app.get('/checkout', (c) => {
    const db = c.get('db');
    const me = currentCustomer(db);
    const values = { ship_name: `${me.first_name} ${me.last_name}`, street: me.street, city: me.city, region: me.region, postcode: me.postcode, shipping_method: 'standard' };
    return c.html(checkoutView(cartLines(db), values, []));
  });

  app.post('/checkout', async (c) => {
    const db = c.get('db');
    const body = await c.req.parseBody();
    const values: Record<string, string> = { shipping_method: field(body, 'shipping_method') };
    for (const [name] of ADDRESS_FIELDS) values[name] = field(body, name);
    const lines = cartLines(db);
    const errors = checkoutErrors(values, lines);
    if (errors.length > 0) return c.html(checkoutView(lines, values, errors), 422);
    return c.redirect(`/orders/${placeOrder(db, values, lines)}?done=placed`, 303);
  });
}
