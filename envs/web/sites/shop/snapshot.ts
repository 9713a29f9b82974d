/** The shop's seeded snapshot, built once per process (about a tenth of a second) and cached. */
import { buildSnapshot } from '../snapshot.ts';
import { generateShopData, SHOP_SEED } from './data.ts';
import { SHOP_SCHEMA } from './schema.ts';

let cached: Buffer | undefined;

/** Builds the shop's snapshot from `seed`; uncached, for determinism tests. */
export function buildShopSnapshot(seed: string = SHOP_SEED): Buffer {
  const data = generateShopData(seed);
  return buildSnapshot(SHOP_SCHEMA, {
    categories: data.categories,
    products: data.products,
    customers: data.customers,
    reviews: data.reviews,
    orders: data.orders,
    order_items: data.order_items,
  });
}

/** The bundled shop snapshot (the tasks' seed), built on first use. */
export function shopSnapshot(): Buffer {
  cached ??= buildShopSnapshot();
  return cached;
}
