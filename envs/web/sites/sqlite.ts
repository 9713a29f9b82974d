/**
 * Loads better-sqlite3, an optional dependency (a native build that only the web env needs).
 * When it cannot load, the web env fails with an error that names the package and the fix,
 * instead of a bare MODULE_NOT_FOUND from deep inside a request.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type Database = BetterSqlite3.Database;
export type DatabaseConstructor = typeof BetterSqlite3;

const require = createRequire(import.meta.url);
let loaded: DatabaseConstructor | undefined;

/** The better-sqlite3 constructor, or an Error saying it is missing and how to install it. */
export function loadSqlite(): DatabaseConstructor {
  loaded ??= loadSqliteWith(() => require('better-sqlite3') as DatabaseConstructor);
  return loaded;
}

/** `loadSqlite` with the module loader given (tests pass one that fails). */
export function loadSqliteWith(load: () => DatabaseConstructor): DatabaseConstructor {
  try {
    const Database = load();
    // The addon binds on first use; opening a database proves it was built for this Node.
    new Database(':memory:').close();
    return Database;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    throw new Error(
      `the web env needs the optional package better-sqlite3 (version 12.11.1; 13 needs Node 22), which could not load: ${reason}. ` +
        'Install it with `npm install better-sqlite3@12.11.1` (it compiles from source when no prebuilt binary fits: needs python3, make and a C++ compiler).',
      { cause },
    );
  }
}
