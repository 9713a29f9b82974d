/** The cart: view it, add a product (from its page), change a quantity, remove a line. */
import type { Hono } from 'hono';
import { field, wholeNumber } from '../../params.ts';
import type { SiteEnv } from '../../site-env.ts';
import type { Database } from '../../sqlite.ts';
import { cartLines, productById } from '../queries.ts';
import { CURRENT_CUSTOMER_ID } from '../schema.ts';
import { cartView } from '../views/cart.ts';
import { renderProduct } from './product-page.ts';

export const MAX_QUANTITY = 99;

const FLASH: Readonly<Record<string, string>> = {
  added: 'The product was added to your cart.',
  updated: 'Your cart was updated.',
  removed: 'The product was removed from your cart.',
};

function inCart(db: Database, productId: number): number {
  const row = db.prepare('SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?').get(CURRENT_CUSTOMER_ID, productId) as { quantity: number } | undefined;
  return row?.quantity ?? 0;
}

function setQuantity(db: Database, productId: number, quantity: number): void {
  if (quantity === 0) db.prepare('DELETE FROM cart_items WHERE customer_id = ? AND product_id = ?').run(CURRENT_CUSTOMER_ID, productId);
  else db.prepare('INSERT INTO cart_items (customer_id, product_id, quantity) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET quantity = excluded.quantity').run(CURRENT_CUSTOMER_ID, productId, quantity);
}

/** Why `quantity` (as typed) of a product with `stock` cannot be in the cart, or undefined when it can. */
export function quantityError(text: string, stock: number, min: 0 | 1): string | undefined {
  const quantity = wholeNumber(text);
  if (quantity === undefined || quantity < min || quantity > MAX_QUANTITY) return `Enter a whole quantity from ${min} to ${MAX_QUANTITY}.`;
  if (quantity > stock) return stock === 0 ? 'This product is out of stock.' : `Only ${stock} left in stock.`;
  return undefined;
}

export function cartRoutes(app: Hono<SiteEnv>): void {
  app.get('/cart', (c) => c.html(cartView(cartLines(c.get('db')), FLASH[c.req.query('done') ?? ''], [])));

  app.post('/cart/add', async (c) => {
    const db = c.get('db');
    const body = await c.req.parseBody();
    const id = wholeNumber(field(body, 'product_id'));
    const product = id === undefined ? undefined : productById(db, id);
    if (!product) return c.html(cartView(cartLines(db), undefined, ['That product does not exist.']), 404);
    const qty = field(body, 'qty');
    const already = inCart(db, product.id);
    const typed = wholeNumber(qty);
    // Adding to what the cart holds must stay within stock and the per-line limit.
    const error = quantityError(qty, product.stock, 1) ?? (typed !== undefined ? quantityError(String(typed + already), product.stock, 1) : undefined);
    if (error) return renderProduct(c, product.id, { status: 422, cart: { errors: [already > 0 ? `${error} Your cart already holds ${already}.` : error], values: { qty } } });
    setQuantity(db, product.id, already + (typed ?? 0));
    return c.redirect('/cart?done=added', 303);
  });

  app.post('/cart/update', async (c) => {
    const db = c.get('db');
    const body = await c.req.parseBody();
    const id = wholeNumber(field(body, 'product_id')) ?? -1;
    const line = cartLines(db).find((l) => l.product_id === id);
    if (!line) return c.html(cartView(cartLines(db), undefined, ['That product is not in your cart.']), 422);
    const error = quantityError(field(body, 'qty'), line.stock, 0);
    if (error) return c.html(cartView(cartLines(db), undefined, [`${line.name}: ${error}`]), 422);
    const quantity = Number(field(body, 'qty'));
    setQuantity(db, id, quantity);
    return c.redirect(`/cart?done=${quantity === 0 ? 'removed' : 'updated'}`, 303);
  });

  app.post('/cart/remove', async (c) => {
    const db = c.get('db');
    const body = await c.req.parseBody();
    const id = wholeNumber(field(body, 'product_id')) ?? -1;
    if (inCart(db, id) === 0) return c.html(cartView(cartLines(db), undefined, ['That product is not in your cart.']), 422);
    setQuantity(db, id, 0);
    return c.redirect('/cart?done=removed', 303);
  });
}
