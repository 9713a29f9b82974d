/** The forum index and post listings (one sub-forum, or all of them) with sort tabs and pages. */
import { html } from 'hono/html';
import { pager, query, type Html } from '../../html.ts';
import type { Forum, PostSummary } from '../queries.ts';
import { POST_SORTS } from '../queries.ts';
import { forumPage, postLine } from './chrome.ts';

export function indexView(rows: readonly Forum[]): Html {
  return forumPage({
    title: 'Forums',
    body: html`<ul>${rows.map((f) => html`<li><a href="/f/${f.name}">f/${f.name}</a> — ${f.title}: ${f.description} (${f.post_count} posts)</li>`)}</ul>`,
  });
}

export interface ListingView {
  readonly title: string;
  readonly path: string;
  readonly forum?: Forum;
  readonly flash?: string | undefined;
  readonly sort: string;
  readonly page: number;
  readonly pages: number;
  readonly rows: readonly PostSummary[];
}

export function listingView(v: ListingView): Html {
  const href = (sort: string, page: number) => `${v.path}${query({ sort: sort === 'hot' ? undefined : sort, page: page === 1 ? undefined : page })}`;
  const here = href(v.sort, v.page);
  const tabs = html`<nav aria-label="Sort"><span>Sort by:</span> ${Object.entries(POST_SORTS).map(([key, s]) =>
    key === v.sort ? html`<strong aria-current="true">${s.label}</strong> ` : html`<a href="${href(key, 1)}">${s.label}</a> `,
  )}</nav>`;
  return forumPage({
    title: v.title,
    flash: v.flash,
    body: html`${v.forum ? html`<p>${v.forum.description}</p><p><a href="/f/${v.forum.name}/submit">Create a post</a></p>` : ''}${tabs}${
      v.rows.length === 0 ? html`<p>There are no posts here yet.</p>` : html`<ol>${v.rows.map((p) => postLine(p, here, !v.forum))}</ol>`
    }${pager(v.page, v.pages, (p) => href(v.sort, p))}`,
  });
}
