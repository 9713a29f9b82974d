/**
 * The shop's seeded content: 10 categories × 40 products with descriptions and stock, about
 * 1,200 reviews, 6 customers with addresses and order histories. Pure: the same seed gives the
 * same rows, in the same order.
 */
import { Rng } from '../../../rng.ts';
import type { Row } from '../snapshot.ts';
import { orderNumber, SHIPPING_METHODS } from './schema.ts';
import { ADJECTIVES, CATEGORIES, CITIES, COLOURS, FIRST_NAMES, LAST_NAMES, REVIEW_SENTENCES, REVIEW_TITLES, STREETS } from './words.ts';

export const SHOP_SEED = 'actorgym-web-shop-v1';
export const PRODUCTS_PER_CATEGORY = 40;
export const CUSTOMER_COUNT = 6;

export interface ShopData {
  readonly categories: readonly Row[];
  readonly products: readonly Row[];
  readonly customers: readonly Row[];
  readonly reviews: readonly Row[];
  readonly orders: readonly Row[];
  readonly order_items: readonly Row[];
}

function minute(rng: Rng, fromDay: number, toDay: number): string {
  // Days since 2023-01-01, then a minute of that day.
  const base = Date.UTC(2023, 0, 1) / 1000;
  const seconds = base + rng.range(fromDay, toDay) * 86_400 + rng.int(24 * 60) * 60;
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

function products(rng: Rng): Row[] {
  const rows: Row[] = [];
  const names = new Set<string>();
  CATEGORIES.forEach((category, c) => {
    for (let i = 0; i < PRODUCTS_PER_CATEGORY; i++) {
      let name = '';
      let brand = '';
      do {
        brand = rng.pick(category.brands);
        name = `${brand} ${rng.pick(ADJECTIVES)} ${rng.pick(category.nouns)}, ${rng.pick(COLOURS)}`;
      } while (names.has(name));
      names.add(name);
      const [low, high] = category.price;
      const dollars = rng.range(low, high + 1);
      const cents = rng.pick([0, 49, 95, 99]);
      const features = rng.shuffle([...category.features]).slice(0, 2);
      const id = rows.length + 1;
      rows.push({
        id,
        sku: `${category.slug.slice(0, 3).toUpperCase()}-${String(1000 + id)}`,
        category_id: c + 1,
        name,
        brand,
        price_cents: Math.max(1, dollars * 100 + cents - (cents > 0 ? 100 : 0)),
        description: `The ${name} by ${brand} comes with ${features[0]} and ${features[1]}. A favourite in ${category.name}.`,
        stock: rng.int(10) === 0 ? 0 : rng.range(1, 60),
      });
    }
  });
  return rows;
}

function customers(rng: Rng): Row[] {
  const rows: Row[] = [];
  const used = new Set<string>();
  for (let id = 1; id <= CUSTOMER_COUNT; id++) {
    let first = '';
    let last = '';
    do {
      first = id === 1 ? 'Emma' : rng.pick(FIRST_NAMES);
      last = id === 1 ? 'Lopez' : rng.pick(LAST_NAMES);
    } while (used.has(first + last));
    used.add(first + last);
    const [city, region] = rng.pick(CITIES);
    rows.push({
      id,
      email: `${first}.${last}@example.com`.toLowerCase(),
      first_name: first,
      last_name: last,
      street: `${rng.range(1, 999)} ${rng.pick(STREETS)}`,
      city,
      region,
      postcode: String(rng.range(10000, 99999)),
      phone: `555-01${String(rng.range(0, 100)).padStart(2, '0')}`,
    });
  }
  return rows;
}

function reviews(rng: Rng, productRows: readonly Row[], customerRows: readonly Row[]): Row[] {
  const rows: Row[] = [];
  for (const product of productRows) {
    // Each product has a "true" quality; ratings scatter around it, so averages differ.
    const quality = rng.range(2, 6);
    const count = rng.int(7);
    for (let i = 0; i < count; i++) {
      const rating = Math.min(5, Math.max(1, quality + rng.pick([-2, -1, 0, 0, 0, 1])));
      const byCustomer = rng.int(8) === 0 ? rng.pick(customerRows) : undefined;
      const sentences = rng.shuffle([...(REVIEW_SENTENCES[rating] ?? [])]).slice(0, 2);
      rows.push({
        id: rows.length + 1,
        product_id: product.id as number,
        customer_id: byCustomer ? (byCustomer.id as number) : null,
        nickname: byCustomer ? String(byCustomer.first_name) : `${rng.pick(FIRST_NAMES)}${rng.range(1, 100)}`,
        rating,
        title: rng.pick(REVIEW_TITLES[rating] ?? ['Review']),
        body: sentences.join(' '),
        created_at: minute(rng, 0, 500),
      });
    }
  }
  return rows;
}

function orders(rng: Rng, productRows: readonly Row[], customerRows: readonly Row[]): { orders: Row[]; items: Row[] } {
  const orderRows: Row[] = [];
  const items: Row[] = [];
  const dated: { customer: Row; at: string }[] = [];
  for (const customer of customerRows) {
    const count = customer.id === 1 ? 8 : rng.range(3, 7);
    for (let i = 0; i < count; i++) dated.push({ customer, at: minute(rng, 0, 515) });
  }
  // Order ids grow with time, as a real shop's do.
  dated.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  for (const { customer, at } of dated) {
    const id = orderRows.length + 1;
    const lines = rng.range(1, 5);
    const chosen = new Set<Row>();
    while (chosen.size < lines) chosen.add(rng.pick(productRows));
    let subtotal = 0;
    for (const product of chosen) {
      const quantity = rng.pick([1, 1, 1, 2, 3]);
      subtotal += (product.price_cents as number) * quantity;
      items.push({ id: items.length + 1, order_id: id, product_id: product.id as number, name: product.name as string, price_cents: product.price_cents as number, quantity });
    }
    const method = rng.int(4) === 0 ? 'express' : 'standard';
    const shipping = SHIPPING_METHODS[method]?.cents ?? 0;
    orderRows.push({
      id,
      number: orderNumber(id),
      customer_id: customer.id as number,
      status: at < '2024-05-01' ? rng.pick(['complete', 'complete', 'complete', 'canceled']) : rng.pick(['pending', 'processing']),
      created_at: at,
      ship_name: `${customer.first_name} ${customer.last_name}`,
      street: customer.street as string,
      city: customer.city as string,
      region: customer.region as string,
      postcode: customer.postcode as string,
      shipping_method: method,
      subtotal_cents: subtotal,
      shipping_cents: shipping,
      total_cents: subtotal + shipping,
    });
  }
  return { orders: orderRows, items };
}

/** Generates the shop's rows from a seed string (default: the bundled tasks' seed). */
export function generateShopData(seed: string = SHOP_SEED): ShopData {
  const rng = Rng.fromString(seed);
  const categories = CATEGORIES.map((c, i) => ({ id: i + 1, slug: c.slug, name: c.name, description: c.description }));
  const productRows = products(rng);
  const customerRows = customers(rng);
  const reviewRows = reviews(rng, productRows, customerRows);
  const { orders: orderRows, items } = orders(rng, productRows, customerRows);
  return { categories, products: productRows, customers: customerRows, reviews: reviewRows, orders: orderRows, order_items: items };
}
