/** The forum's page frame and the pieces every listing shares: a post's line and its vote buttons. */
import { html } from 'hono/html';
import { SITE_NOW, isoMinute } from '../../clock.ts';
import { layout, type Html } from '../../html.ts';
import type { PostSummary } from '../queries.ts';

export const FORUM_NAME = 'Postboard';

export function forumPage(page: { title: string; heading?: string; flash?: string | undefined; body: Html }): Html {
  return layout({ ...page, site: FORUM_NAME, nav: [['Forums', '/'], ['All posts', '/all'], ['My profile', '/user/curious_otter']] });
}

/** `3 days ago`, relative to the site clock. */
export function ago(seconds: number): Html {
  const minutes = Math.max(0, Math.floor((SITE_NOW - seconds) / 60));
  const [n, unit] = minutes < 60 ? [minutes, 'minute'] : minutes < 1440 ? [Math.floor(minutes / 60), 'hour'] : [Math.floor(minutes / 1440), 'day'];
  const text = n === 0 ? 'just now' : `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  return html`<time datetime="${new Date(seconds * 1000).toISOString()}" title="${isoMinute(seconds)}">${text}</time>`;
}

/** Upvote and downvote buttons; `back` is where the vote redirects to (the page they are on). */
export function voteForms(post: PostSummary, back: string): Html {
  const button = (direction: 'up' | 'down', label: string, pressed: boolean) =>
    html`<form method="post" action="/f/${post.forum}/${post.id}/vote" style="display:inline"><input type="hidden" name="direction" value="${direction}"><input type="hidden" name="next" value="${back}"><button type="submit" aria-pressed="${pressed ? 'true' : 'false'}" aria-label="${label} ${post.title}">${label}</button></form>`;
  return html`${button('up', 'Upvote', post.my_vote === 1)} <span class="score" aria-label="Score">${post.score}</span> ${button('down', 'Downvote', post.my_vote === -1)}`;
}

export function postLine(post: PostSummary, back: string, showForum: boolean): Html {
  return html`<li><article aria-label="${post.title}">${voteForms(post, back)} <a href="/f/${post.forum}/${post.id}">${post.title}</a>
<p>Submitted ${ago(post.created_at)} by <a href="/user/${post.author}">${post.author}</a>${showForum ? html` to <a href="/f/${post.forum}">f/${post.forum}</a>` : ''} · <a href="/f/${post.forum}/${post.id}">${post.comment_count} comment${post.comment_count === 1 ? '' : 's'}</a></p></article></li>`;
}

export function notFoundView(what: string): Html {
  return forumPage({ title: 'Page not found', body: html`<p>${what}</p><p><a href="/">Back to the forums</a></p>` });
}
