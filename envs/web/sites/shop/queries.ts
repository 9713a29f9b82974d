/** Typed reads of the shop's database, shared by its routes (and readable by evaluators). */
import type { Database } from '../sqlite.ts';
import { CURRENT_CUSTOMER_ID } from './schema.ts';

export interface Category { id: number; slug: string; name: string; description: string; product_count: number }
export interface ProductSummary { id: number; sku: string; name: string; price_cents: number; stock: number; rating: number | null; review_count: number }
export interface Product extends ProductSummary { brand: string; description: string; category_slug: string; category_name: string }
export interface Review { id: number; nickname: string; rating: number; title: string; body: string; created_at: string }
export interface CartLine { product_id: number; name: string; price_cents: number; quantity: number; stock: number }
export interface Customer { id: number; email: string; first_name: string; last_name: string; street: string; city: string; region: string; postcode: string; phone: string }
export interface Order { id: number; number: string; status: string; created_at: string; ship_name: string; street: string; city: string; region: string; postcode: string; shipping_method: string; subtotal_cents: number; shipping_cents: number; total_cents: number; item_count: number }
export interface OrderItem { product_id: number; name: string; price_cents: number; quantity: number }

/** Listing orders, whitelisted: the `sort` parameter picks one of these, never raw SQL. */
export const SORTS: Readonly<Record<string, { readonly label: string; readonly sql: string }>> = {
  position: { label: 'Position', sql: 'p.id' },
  name: { label: 'Name', sql: 'p.name COLLATE NOCASE, p.id' },
  price_asc: { label: 'Price: low to high', sql: 'p.price_cents, p.id' },
  price_desc: { label: 'Price: high to low', sql: 'p.price_cents DESC, p.id' },
  rating: { label: 'Rating', sql: 'rating IS NULL, rating DESC, p.id' },
};

const SUMMARY = `p.id, p.sku, p.name, p.price_cents, p.stock,
  (SELECT round(avg(r.rating), 1) FROM reviews r WHERE r.product_id = p.id) AS rating,
  (SELECT count(*) FROM reviews r WHERE r.product_id = p.id) AS review_count`;

export function categories(db: Database): Category[] {
  return db.prepare('SELECT c.*, (SELECT count(*) FROM products p WHERE p.category_id = c.id) AS product_count FROM categories c ORDER BY c.id').all() as Category[];
}

export function categoryBySlug(db: Database, slug: string): Category | undefined {
  return categories(db).find((c) => c.slug === slug);
}

/** A page of products matching `where` (SQL over `p`, with `params`), in a whitelisted order. */
export function productPage(db: Database, where: string, params: readonly unknown[], sort: string, limit: number, offset: number): { total: number; rows: ProductSummary[] } {
  const order = (SORTS[sort] ?? SORTS.position)?.sql ?? 'p.id';
  const total = (db.prepare(`SELECT count(*) AS n FROM products p WHERE ${where}`).get(...params) as { n: number }).n;
  const rows = db.prepare(`SELECT ${SUMMARY} FROM products p WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, limit, offset) as ProductSummary[];
  return { total, rows };
}

/** SQL and parameters matching products whose name or SKU contains every word of `q`. */
export function searchWhere(q: string): { where: string; params: string[] } {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8);
  if (words.length === 0) return { where: '0', params: [] };
  return { where: words.map(() => '(instr(lower(p.name), ?) > 0 OR lower(p.sku) = ?)').join(' AND '), params: words.flatMap((w) => [w, w]) };
}

export function topRated(db: Database, limit: number): ProductSummary[] {
  return db.prepare(`SELECT ${SUMMARY} FROM products p WHERE review_count >= 3 ORDER BY rating DESC, review_count DESC, p.id LIMIT ?`).all(limit) as ProductSummary[];
}

export function productById(db: Database, id: number): Product | undefined {
  return db.prepare(`SELECT ${SUMMARY}, p.brand, p.description, c.slug AS category_slug, c.name AS category_name
    FROM products p JOIN categories c ON c.id = p.category_id WHERE p.id = ?`).get(id) as Product | undefined;
}

export function reviewsOf(db: Database, productId: number): Review[] {
  return db.prepare('SELECT id, nickname, rating, title, body, created_at FROM reviews WHERE product_id = ? ORDER BY created_at DESC, id DESC').all(productId) as Review[];
}

export function cartLines(db: Database): CartLine[] {
  return db.prepare(`SELECT c.product_id, p.name, p.price_cents, c.quantity, p.stock FROM cart_items c JOIN products p ON p.id = c.product_id
    WHERE c.customer_id = ? ORDER BY p.name, p.id`).all(CURRENT_CUSTOMER_ID) as CartLine[];
}

export function currentCustomer(db: Database): Customer {
  return db.prepare('SELECT * FROM customers WHERE id = ?').get(CURRENT_CUSTOMER_ID) as Customer;
}

const ORDER = 'o.*, (SELECT sum(quantity) FROM order_items i WHERE i.order_id = o.id) AS item_count';

export function ordersPage(db: Database, limit: number, offset: number): { total: number; rows: Order[] } {
  const total = (db.prepare('SELECT count(*) AS n FROM orders WHERE customer_id = ?').get(CURRENT_CUSTOMER_ID) as { n: number }).n;
  const rows = db.prepare(`SELECT ${ORDER} FROM orders o WHERE o.customer_id = ? ORDER BY o.id DESC LIMIT ? OFFSET ?`).all(CURRENT_CUSTOMER_ID, limit, offset) as Order[];
  return { total, rows };
}

/** One of the current customer's orders by number; another customer's is not found. */
export function orderByNumber(db: Database, number: string): { order: Order; items: OrderItem[] } | undefined {
  const order = db.prepare(`SELECT ${ORDER} FROM orders o WHERE o.number = ? AND o.customer_id = ?`).get(number, CURRENT_CUSTOMER_ID) as Order | undefined;
  if (!order) return undefined;
  const items = db.prepare('SELECT product_id, name, price_cents, quantity FROM order_items WHERE order_id = ? ORDER BY id').all(order.id) as OrderItem[];
  return { order, items };
}
