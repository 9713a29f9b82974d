/**
 * Builds a site's seeded database and serializes it: the snapshot every instance copy is
 * deserialized from. Rows are inserted in the order given, in one transaction, so the same
 * rows give byte-identical snapshots.
 */
import { loadSqlite, type Database } from './sqlite.ts';

export type Row = Readonly<Record<string, string | number | null>>;

/** Creates the schema, inserts `tables` (table name → rows, inserted in key order) and serializes. */
export function buildSnapshot(schema: string, tables: Readonly<Record<string, readonly Row[]>>): Buffer {
  const Database = loadSqlite();
  const db = new Database(':memory:');
  try {
    db.exec(schema);
    db.transaction(() => {
      for (const [table, rows] of Object.entries(tables)) {
        const first = rows[0];
        if (!first) continue;
        const columns = Object.keys(first);
        const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
        for (const row of rows) insert.run(row);
      }
    })();
    db.exec('VACUUM');
    return db.serialize();
  } finally {
    db.close();
  }
}

/** A fresh in-memory database holding a copy of `snapshot`; writes never reach the snapshot. */
export function openCopy(snapshot: Buffer): Database {
  const Database = loadSqlite();
  const db = new Database(snapshot);
  db.pragma('foreign_keys = ON');
  return db;
}
