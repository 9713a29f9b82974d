/** The create-post form of a sub-forum. */
import { html } from 'hono/html';
import { errorList, type Html } from '../../html.ts';
import type { Forum } from '../queries.ts';
import { forumPage } from './chrome.ts';

export function submitView(forum: Forum, values: Readonly<Record<string, string>>, errors: readonly string[]): Html {
  return forumPage({
    title: `Create a post in f/${forum.name}`,
    body: html`<form method="post" action="/f/${forum.name}/submit">${errorList(errors)}
<p><label for="title">Title</label> <input id="title" name="title" maxlength="300" value="${values.title ?? ''}"></p>
<p><label for="body">Body</label> <textarea id="body" name="body" maxlength="10000">${values.body ?? ''}</textarea></p>
<button type="submit">Create post</button></form><p><a href="/f/${forum.name}">Cancel</a></p>`,
  });
}
