/** A post's page (body, votes, threaded comments, comment form) and the reply-to-comment page. */
import { html } from 'hono/html';
import { errorList, type Html } from '../../html.ts';
import type { Comment, Post } from '../queries.ts';
import { ago, forumPage, voteForms } from './chrome.ts';

function thread(all: readonly Comment[], parent: number | null, post: Post): Html | '' {
  const children = all.filter((c) => c.parent_id === parent);
  if (children.length === 0) return '';
  return html`<ul>${children.map(
    (c) => html`<li id="comment-${c.id}"><article aria-label="Comment by ${c.author}"><p><a href="/user/${c.author}">${c.author}</a> ${ago(c.created_at)}</p><p>${c.body}</p>
<p><a href="/f/${post.forum}/${post.id}/comment/${c.id}/reply">Reply</a></p></article>${thread(all, c.id, post)}</li>`,
  )}</ul>`;
}

export function commentForm(action: string, errors: readonly string[], body: string, label: string): Html {
  return html`<form method="post" action="${action}">${errorList(errors)}<label for="comment-body">${label}</label>
<textarea id="comment-body" name="body" maxlength="5000">${body}</textarea><button type="submit">Post comment</button></form>`;
}

export function postView(post: Post, comments: readonly Comment[], flash: string | undefined, form: { errors: readonly string[]; body: string }): Html {
  return forumPage({
    title: post.title,
    flash,
    body: html`<nav aria-label="Breadcrumb"><a href="/">Forums</a> › <a href="/f/${post.forum}">f/${post.forum}</a></nav>
<p>Submitted ${ago(post.created_at)} by <a href="/user/${post.author}">${post.author}</a></p>
<p>${voteForms(post, `/f/${post.forum}/${post.id}`)}</p>
<div class="body">${post.body.split(/\n+/).map((para) => html`<p>${para}</p>`)}</div>
<section aria-labelledby="comments"><h2 id="comments">${comments.length} comment${comments.length === 1 ? '' : 's'}</h2>
${commentForm(`/f/${post.forum}/${post.id}/comment`, form.errors, form.body, 'Write a comment')}${thread(comments, null, post)}</section>`,
  });
}

export function replyView(post: Post, parent: Comment, form: { errors: readonly string[]; body: string }): Html {
  return forumPage({
    title: `Reply to ${parent.author}`,
    body: html`<p>On <a href="/f/${post.forum}/${post.id}">${post.title}</a></p><blockquote><p>${parent.author} wrote:</p><p>${parent.body}</p></blockquote>
${commentForm(`/f/${post.forum}/${post.id}/comment/${parent.id}/reply`, form.errors, form.body, 'Your reply')}`,
  });
}
