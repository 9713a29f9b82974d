/** The forum's pages over HTTP: listings sort and paginate, votes toggle, comments and posts validate. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSiteServer, type SiteServer } from '../../../envs/web/site-server.ts';
import { fetchAs, linksOf, postAs, titleOf } from './fetch-as.ts';

let server: SiteServer;
let id: string;
const get = (path: string) => fetchAs(server, id, 'forum', path);
const post = (path: string, form: Record<string, string>) => postAs(server, id, 'forum', path, form);
const postIds = (html: string) => [...html.matchAll(/<article aria-label="[^"]*">.*?<a href="\/f\/\w+\/(\d+)">/gs)].map((m) => Number(m[1]));

beforeAll(async () => {
  server = await startSiteServer({ env: {} });
  id = server.createInstance();
});
afterAll(() => server.close());

describe('forum pages', () => {
  it('lists the sub-forums, and each links to a listing whose posts, authors and pages resolve', async () => {
    const index = await get('/');
    expect(titleOf(index.html)).toBe('Forums | Postboard');
    const forums = linksOf(index.html).filter((l) => /^\/f\/\w+$/.test(l));
    expect(forums).toHaveLength(8);
    const listing = await get('/f/books');
    expect(listing.html).toContain('Page 1 of 2');
    const links = linksOf(listing.html);
    for (const link of [links.find((l) => /^\/f\/books\/\d+$/.test(l)), links.find((l) => l.startsWith('/user/')), links.find((l) => l.includes('page=2')), '/all', '/f/books/submit']) {
      expect(link).toBeDefined();
      expect((await get(link as string)).status, link).toBe(200);
    }
  });

  it('sorts new by date, top by score, and keeps the sort across pages', async () => {
    const db = server.database(id, 'forum');
    const newest = db.all("SELECT p.id FROM posts p JOIN forums f ON f.id = p.forum_id WHERE f.name = 'music' ORDER BY created_at DESC, p.id DESC LIMIT 25") as { id: number }[];
    expect(postIds((await get('/f/music?sort=new')).html)).toEqual(newest.map((r) => r.id));
    const top = await get('/f/music?sort=top');
    const scores = [...top.html.matchAll(/<span class="score" aria-label="Score">(-?\d+)<\/span>/g)].map((m) => Number(m[1]));
    expect(scores).toHaveLength(25);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(linksOf(top.html)).toContain('/f/music?sort=top&page=2');
    const hot = postIds((await get('/f/music')).html);
    expect(hot).toHaveLength(25);
    expect(hot).not.toEqual(newest.map((r) => r.id));
  });

  it('upvotes, switches to a downvote, takes the vote back, with the score following', async () => {
    const db = server.database(id, 'forum');
    const target = db.get("SELECT p.id, p.score FROM posts p WHERE p.forum_id = 1 AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.post_id = p.id AND v.user_id = 1) ORDER BY p.id") as { id: number; score: number };
    const forum = (db.get('SELECT name FROM forums WHERE id = 1') as { name: string }).name;
    const vote = (direction: string, next?: string) => post(`/f/${forum}/${target.id}/vote`, { direction, ...(next ? { next } : {}) });
    const score = () => (db.get('SELECT score FROM posts WHERE id = ?', target.id) as { score: number }).score;
    expect((await vote('up')).location).toBe(`/f/${forum}/${target.id}?done=voted`);
    expect(score()).toBe(target.score + 1);
    expect((await get(`/f/${forum}/${target.id}`)).html).toMatch(/aria-pressed="true" aria-label="Upvote/);
    await vote('down', `/f/${forum}?sort=new`);
    expect(score()).toBe(target.score - 1);
    expect((await vote('down', '//evil.example/')).location).toBe(`/f/${forum}/${target.id}?done=unvoted`);
    expect(score()).toBe(target.score);
    expect((await vote('sideways')).status).toBe(422);
    expect((await post(`/f/${forum}/999999/vote`, { direction: 'up' })).status).toBe(404);
  });

  it('comments and replies after validation, escaping the text', async () => {
    const postId = (server.database(id, 'forum').get("SELECT p.id FROM posts p JOIN forums f ON f.id = p.forum_id WHERE f.name = 'books' ORDER BY p.id") as { id: number }).id;
    expect((await post(`/f/movies/${postId}/comment`, { body: 'wrong forum' })).status).toBe(404);
    const bad = await post(`/f/books/${postId}/comment`, { body: '   ' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('A comment cannot be empty.');
    const ok = await post(`/f/books/${postId}/comment`, { body: 'Great <i>point</i>' });
    expect(ok.status).toBe(303);
    const commentId = /#comment-(\d+)$/.exec(ok.location ?? '')?.[1];
    const page = await get(`/f/books/${postId}?done=commented`);
    expect(page.html).toContain('Your comment was posted.');
    expect(page.html).toContain('Great &lt;i&gt;point&lt;/i&gt;');
    expect(page.html).toContain(`id="comment-${commentId}"`);
    const replyPath = `/f/books/${postId}/comment/${commentId}/reply`;
    expect((await get(replyPath)).html).toContain('<label for="comment-body">Your reply</label>');
    expect((await post(replyPath, { body: '' })).status).toBe(422);
    expect((await post(replyPath, { body: 'Agreed.' })).status).toBe(303);
    const reply = server.database(id, 'forum').get('SELECT parent_id FROM comments WHERE body = ?', 'Agreed.') as { parent_id: number };
    expect(reply.parent_id).toBe(Number(commentId));
  });

  it('creates a post after validating title and body, shown first under new and on the profile', async () => {
    const bad = await post('/f/cooking/submit', { title: 'Hi', body: '' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('Title must be at least 5 characters.');
    expect(bad.html).toContain('Body is required.');
    expect(bad.html).toContain('value="Hi"');
    const ok = await post('/f/cooking/submit', { title: 'Crispy tofu in an air fryer', body: 'Cornstarch is the trick.' });
    const newId = /^\/f\/cooking\/(\d+)\?done=posted$/.exec(ok.location ?? '')?.[1];
    expect(newId).toBeDefined();
    expect(postIds((await get('/f/cooking?sort=new')).html)[0]).toBe(Number(newId));
    expect((await get('/user/curious_otter')).html).toContain('Crispy tofu in an air fryer');
    expect((await post('/f/nope/submit', { title: 'Hello there', body: 'x' })).status).toBe(404);
  });

  it('shows profiles with karma, and 404s unknown users, forums and posts', async () => {
    const profile = await get('/user/curious_otter');
    expect(profile.html).toMatch(/Karma: -?\d+/);
    for (const path of ['/user/nobody_here', '/f/nope', '/f/books/999999', '/f/books/abc']) expect((await get(path)).status, path).toBe(404);
  });
});
