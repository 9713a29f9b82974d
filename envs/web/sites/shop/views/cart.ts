/** The cart and the checkout form. */
import { html } from 'hono/html';
import { errorList, money, type Html } from '../../html.ts';
import type { CartLine } from '../queries.ts';
import { SHIPPING_METHODS } from '../schema.ts';
import { shopPage } from './chrome.ts';

export function subtotal(lines: readonly CartLine[]): number {
  return lines.reduce((sum, l) => sum + l.price_cents * l.quantity, 0);
}

export function cartView(lines: readonly CartLine[], flash: string | undefined, errors: readonly string[]): Html {
  if (lines.length === 0) {
    return shopPage({ title: 'Shopping Cart', flash, body: html`${errorList(errors)}<p>You have no items in your shopping cart.</p><p><a href="/">Continue shopping</a></p>` });
  }
  return shopPage({
    title: 'Shopping Cart',
    flash,
    body: html`${errorList(errors)}<table><caption>Items in your cart</caption><thead><tr><th>Product</th><th>Price</th><th>Quantity</th><th>Line total</th><th>Remove</th></tr></thead><tbody>${lines.map(
      (l) => html`<tr><td><a href="/product/${l.product_id}">${l.name}</a></td><td>${money(l.price_cents)}</td>
<td><form method="post" action="/cart/update"><input type="hidden" name="product_id" value="${l.product_id}"><label for="qty-${l.product_id}">Quantity of ${l.name}</label>
<input id="qty-${l.product_id}" name="qty" type="number" min="0" max="99" value="${l.quantity}"><button type="submit">Update</button></form></td>
<td>${money(l.price_cents * l.quantity)}</td>
<td><form method="post" action="/cart/remove"><input type="hidden" name="product_id" value="${l.product_id}"><button type="submit" aria-label="Remove ${l.name}">Remove</button></form></td></tr>`,
    )}</tbody></table><p>Subtotal: <strong>${money(subtotal(lines))}</strong></p><p><a href="/checkout">Proceed to Checkout</a></p>`,
  });
}

export const ADDRESS_FIELDS = [
  ['ship_name', 'Full name'],
  ['street', 'Street address'],
  ['city', 'City'],
  ['region', 'State (two letters)'],
  ['postcode', 'ZIP code'],
] as const;

export function checkoutView(lines: readonly CartLine[], values: Readonly<Record<string, string>>, errors: readonly string[]): Html {
  if (lines.length === 0) {
    return shopPage({ title: 'Checkout', body: html`${errorList(errors)}<p>Your cart is empty, so there is nothing to check out.</p><p><a href="/">Continue shopping</a></p>` });
  }
  const method = values.shipping_method ?? 'standard';
  return shopPage({
    title: 'Checkout',
    body: html`<section aria-labelledby="summary"><h2 id="summary">Order summary</h2><ul>${lines.map(
      (l) => html`<li>${l.name} × ${l.quantity}: ${money(l.price_cents * l.quantity)}</li>`,
    )}</ul><p>Subtotal: ${money(subtotal(lines))}</p></section>
<form method="post" action="/checkout">${errorList(errors)}<fieldset><legend>Shipping address</legend>${ADDRESS_FIELDS.map(
      ([name, label]) => html`<p><label for="${name}">${label}</label> <input id="${name}" name="${name}" value="${values[name] ?? ''}"></p>`,
    )}</fieldset>
<fieldset><legend>Shipping method</legend>${Object.entries(SHIPPING_METHODS).map(
      ([key, m]) => html`<p><input type="radio" id="ship-${key}" name="shipping_method" value="${key}"${key === method ? ' checked' : ''}><label for="ship-${key}">${m.label}: ${money(m.cents)}</label></p>`,
    )}</fieldset><button type="submit">Place Order</button></form>`,
  });
}
