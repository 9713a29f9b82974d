/** Typed views of the seeded shop rows that the shop's task templates use, and their plan steps. */
import { money } from '../sites/format.ts';
import { CURRENT_CUSTOMER_ID } from '../sites/shop/schema.ts';
import { heldOut, shopData, TEST_CATEGORIES } from './seeded.ts';
import type { WebPlanStep } from './task.ts';

export interface ShopProduct {
  readonly id: number;
  readonly name: string;
  readonly brand: string;
  readonly sku: string;
  readonly priceCents: number;
  readonly stock: number;
  readonly categoryId: number;
  readonly reviewCount: number;
  /** Mean rating, unrounded; undefined without reviews. */
  readonly rating: number | undefined;
  readonly test: boolean;
}

export interface ShopCategory { readonly id: number; readonly slug: string; readonly name: string; readonly test: boolean }
export interface ShopOrder { readonly id: number; readonly number: string; readonly date: string; readonly totalCents: number; readonly test: boolean }

let cached: { products: ShopProduct[]; categories: ShopCategory[]; orders: ShopOrder[] } | undefined;

export function shopEntities(): { products: ShopProduct[]; categories: ShopCategory[]; orders: ShopOrder[] } {
  if (cached) return cached;
  const data = shopData();
  const ratings = new Map<number, number[]>();
  for (const r of data.reviews) ratings.set(r.product_id as number, [...(ratings.get(r.product_id as number) ?? []), r.rating as number]);
  const products = data.products.map((p): ShopProduct => {
    const rs = ratings.get(p.id as number) ?? [];
    return {
      id: p.id as number, name: p.name as string, brand: p.brand as string, sku: p.sku as string, priceCents: p.price_cents as number,
      stock: p.stock as number, categoryId: p.category_id as number, reviewCount: rs.length,
      rating: rs.length > 0 ? rs.reduce((a, b) => a + b, 0) / rs.length : undefined, test: heldOut(`product/${String(p.id)}`),
    };
  });
  const categories = data.categories.map((c) => ({ id: c.id as number, slug: c.slug as string, name: c.name as string, test: TEST_CATEGORIES.includes(c.slug as string) }));
  // The logged-in customer's orders, oldest first; the last two by a fixed pick are test-only.
  const mine = data.orders.filter((o) => o.customer_id === CURRENT_CUSTOMER_ID);
  const orders = mine.map((o, i) => ({ id: o.id as number, number: o.number as string, date: (o.created_at as string).slice(0, 10), totalCents: o.total_cents as number, test: i % 4 === 1 }));
  cached = { products, categories, orders };
  return cached;
}

/** Seeded maxima: rows with larger ids were written during an episode. */
export function shopSeededMax(): { order: number; review: number } {
  const data = shopData();
  return { order: data.orders.length, review: data.reviews.length };
}

/** From anywhere in the shop to a product's page: the search box, then the product's link. */
export function toProduct(p: ShopProduct): WebPlanStep[] {
  return [{ fill: { label: 'Search products', value: p.name } }, { clickButton: 'Search' }, { clickLink: p.name }];
}

export const price = (cents: number): string => money(cents);
