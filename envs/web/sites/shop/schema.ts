/**
 * The shop's SQLite schema. Money is in integer cents, times are ISO minutes (`2024-05-30 14:03`)
 * at the fixed site clock. The logged-in customer is `customers.id = 1` (CURRENT_CUSTOMER_ID);
 * the cart lives in the database so an instance's copy holds its whole state.
 */

export const CURRENT_CUSTOMER_ID = 1;

/** Flat shipping prices in cents, by method, as the checkout form offers them. */
export const SHIPPING_METHODS: Readonly<Record<string, { readonly label: string; readonly cents: number }>> = {
  standard: { label: 'Standard (5–7 days)', cents: 500 },
  express: { label: 'Express (1–2 days)', cents: 1500 },
};

export const SHOP_SCHEMA = `
CREATE TABLE categories (
  id INTEGER PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  sku TEXT NOT NULL UNIQUE,
  category_id INTEGER NOT NULL REFERENCES categories(id),
  name TEXT NOT NULL,
  brand TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents > 0),
  description TEXT NOT NULL,
  stock INTEGER NOT NULL CHECK (stock >= 0)
);
CREATE INDEX products_category ON products(category_id);
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  street TEXT NOT NULL,
  city TEXT NOT NULL,
  region TEXT NOT NULL,
  postcode TEXT NOT NULL,
  phone TEXT NOT NULL
);
CREATE TABLE reviews (
  id INTEGER PRIMARY KEY,
  product_id INTEGER NOT NULL REFERENCES products(id),
  customer_id INTEGER REFERENCES customers(id),
  nickname TEXT NOT NULL,
  rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX reviews_product ON reviews(product_id);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  number TEXT NOT NULL UNIQUE,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'complete', 'canceled')),
  created_at TEXT NOT NULL,
  ship_name TEXT NOT NULL,
  street TEXT NOT NULL,
  city TEXT NOT NULL,
  region TEXT NOT NULL,
  postcode TEXT NOT NULL,
  shipping_method TEXT NOT NULL,
  subtotal_cents INTEGER NOT NULL,
  shipping_cents INTEGER NOT NULL,
  total_cents INTEGER NOT NULL
);
CREATE INDEX orders_customer ON orders(customer_id);
CREATE TABLE order_items (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  name TEXT NOT NULL,
  price_cents INTEGER NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity > 0)
);
CREATE INDEX order_items_order ON order_items(order_id);
CREATE TABLE cart_items (
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (customer_id, product_id)
);
`;

/** A 9-digit order number from the order id, as Magento shows them (`000000042`). */
export function orderNumber(id: number): string {
  return String(id).padStart(9, '0');
}
