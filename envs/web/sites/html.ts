/**
 * Shared HTML for both sites: the page layout, flash and error messages, and the pager. Every
 * value goes through hono's `html` tag, which escapes it unless it is itself `html` output, so
 * user text (reviews, posts, search terms) can never inject markup. No JavaScript: links and
 * forms only, so an accessibility tree sees everything an agent can do.
 */
import { html } from 'hono/html';

export type Html = ReturnType<typeof html>;

export interface Layout {
  /** The <title>, also the page's <h1> unless `heading` is given. */
  readonly title: string;
  readonly heading?: string;
  /** Site name shown in the header and appended to the title. */
  readonly site: string;
  /** Header links: [label, href]. */
  readonly nav: readonly (readonly [string, string])[];
  /** Extra header content (the shop's search form). */
  readonly header?: Html;
  /** A one-line success message from a redirect (`?done=...`). */
  readonly flash?: string | undefined;
  readonly body: Html;
}

const STYLE = `body{font-family:sans-serif;max-width:60rem;margin:0 auto;padding:0 1rem}
header{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #ccc;padding:.5rem 0}
nav a{margin-right:.75rem}.flash{background:#e6ffe6;padding:.5rem}.error{color:#a00}
table{border-collapse:collapse}td,th{padding:.25rem .5rem;border-bottom:1px solid #eee;text-align:left}
li{margin:.25rem 0}.score{font-weight:bold}`;

export function layout(page: Layout): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${page.title} | ${page.site}</title><style>${STYLE}</style></head>
<body><header><strong><a href="/">${page.site}</a></strong><nav aria-label="Main">${page.nav.map(([label, href]) => html`<a href="${href}">${label}</a>`)}</nav>${page.header ?? ''}</header>
<main>${page.flash ? html`<p class="flash" role="status">${page.flash}</p>` : ''}<h1>${page.heading ?? page.title}</h1>
${page.body}</main></body></html>`;
}

/** A form's error summary, named so an accessibility tree reads it as an alert. */
export function errorList(errors: readonly string[]): Html | '' {
  if (errors.length === 0) return '';
  return html`<div role="alert" class="error"><p>Please fix the following:</p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>`;
}

/**
 * Previous / numbered / next page links. `href(page)` builds a page's URL so the caller keeps
 * its other query parameters (sort, q).
 */
export function pager(page: number, pages: number, href: (page: number) => string): Html | '' {
  if (pages <= 1) return '';
  const first = Math.max(1, Math.min(page - 3, pages - 6));
  const numbers: number[] = [];
  for (let p = first; p <= Math.min(pages, first + 6); p++) numbers.push(p);
  return html`<nav aria-label="Pagination"><p>Page ${page} of ${pages}</p>
${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">Previous page</a> ` : ''}${numbers.map((p) =>
    p === page ? html`<strong aria-current="page">${p}</strong> ` : html`<a href="${href(p)}" aria-label="Page ${p}">${p}</a> `,
  )}${page < pages ? html`<a href="${href(page + 1)}" rel="next">Next page</a>` : ''}</nav>`;
}

/** `$12.34` from cents. */
export { money } from './format.ts';

/** A query string from pairs, leaving out empty values (`?q=mug&page=2`). */
export function query(params: Readonly<Record<string, string | number | undefined>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
