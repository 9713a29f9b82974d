/** better-sqlite3 is optional: when it cannot load, the error names the package, the version and how to install it. */
import { describe, expect, it } from 'vitest';
import { loadSqlite, loadSqliteWith } from '../../../envs/web/sites/sqlite.ts';

describe('loadSqlite', () => {
  it('loads the installed better-sqlite3 and opens a database', () => {
    const Database = loadSqlite();
    const db = new Database(':memory:');
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });

  it('turns a missing module into an error naming better-sqlite3 12.11.1 and the install command', () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => loadSqliteWith(missing)).toThrow(/optional package better-sqlite3 .*Cannot find module 'better-sqlite3'.*npm install better-sqlite3@12\.11\.1/);
  });
});
