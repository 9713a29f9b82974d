/** The forum's seeded snapshot, built once per process and cached. */
import { buildSnapshot } from '../snapshot.ts';
import { FORUM_SEED, generateForumData } from './data.ts';
import { FORUM_SCHEMA } from './schema.ts';

let cached: Buffer | undefined;

/** Builds the forum's snapshot from `seed`; uncached, for determinism tests. */
export function buildForumSnapshot(seed: string = FORUM_SEED): Buffer {
  const data = generateForumData(seed);
  return buildSnapshot(FORUM_SCHEMA, { users: data.users, forums: data.forums, posts: data.posts, comments: data.comments, votes: data.votes });
}

/** The bundled forum snapshot (the tasks' seed), built on first use. */
export function forumSnapshot(): Buffer {
  cached ??= buildForumSnapshot();
  return cached;
}
