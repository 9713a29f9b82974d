/**
 * The forum's SQLite schema. Times are Unix seconds at the fixed site clock. `posts.score` is
 * the sum of the post's votes, kept in step by the vote route, so listings sort without a join.
 * The logged-in user is `users.id = 1` (CURRENT_USER_ID).
 */

export const CURRENT_USER_ID = 1;

export const FORUM_SCHEMA = `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL UNIQUE,
  bio TEXT NOT NULL,
  joined_at INTEGER NOT NULL
);
CREATE TABLE forums (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  description TEXT NOT NULL
);
CREATE TABLE posts (
  id INTEGER PRIMARY KEY,
  forum_id INTEGER NOT NULL REFERENCES forums(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  score INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX posts_forum ON posts(forum_id);
CREATE INDEX posts_user ON posts(user_id);
CREATE TABLE comments (
  id INTEGER PRIMARY KEY,
  post_id INTEGER NOT NULL REFERENCES posts(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  parent_id INTEGER REFERENCES comments(id),
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX comments_post ON comments(post_id);
CREATE INDEX comments_user ON comments(user_id);
CREATE TABLE votes (
  user_id INTEGER NOT NULL REFERENCES users(id),
  post_id INTEGER NOT NULL REFERENCES posts(id),
  value INTEGER NOT NULL CHECK (value IN (-1, 1)),
  PRIMARY KEY (user_id, post_id)
);
`;
