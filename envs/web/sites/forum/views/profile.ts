/** A user's profile: bio, joined date, karma, their posts and their latest comments. */
import { html } from 'hono/html';
import { isoDay } from '../../clock.ts';
import type { Html } from '../../html.ts';
import type { Comment, PostSummary, User } from '../queries.ts';
import { ago, forumPage, postLine } from './chrome.ts';

export function profileView(user: User, karma: number, posts: readonly PostSummary[], comments: readonly (Comment & { post_id: number; post_title: string; forum: string })[]): Html {
  return forumPage({
    title: `User ${user.username}`,
    heading: user.username,
    body: html`<p>${user.bio || 'This user has not written a bio.'}</p><p>Joined ${isoDay(user.joined_at)}</p><p>Karma: ${karma}</p>
<section aria-labelledby="posts"><h2 id="posts">Posts (${posts.length})</h2>${posts.length === 0 ? html`<p>No posts yet.</p>` : html`<ol>${posts.map((p) => postLine(p, `/user/${user.username}`, true))}</ol>`}</section>
<section aria-labelledby="comments"><h2 id="comments">Recent comments</h2>${
      comments.length === 0 ? html`<p>No comments yet.</p>` : html`<ul>${comments.map((c) => html`<li><p>${c.body}</p><p>on <a href="/f/${c.forum}/${c.post_id}#comment-${c.id}">${c.post_title}</a> ${ago(c.created_at)}</p></li>`)}</ul>`
    }</section>`,
  });
}
