/**
 * The per-instance state of the bundled sites: for each (instance, site) an in-memory SQLite
 * database deserialized from the site's seeded snapshot, opened on first use. A reset drops the
 * copies (the next request opens fresh ones), so it costs nothing until the site is used.
 */
import type { Database } from './sites/sqlite.ts';
import { openCopy } from './sites/snapshot.ts';
import type { SiteName } from './site-urls.ts';

/** Read-only access to an instance's site database, for evaluators: writing statements are refused. */
export interface SiteQuery {
  all(sql: string, ...params: unknown[]): unknown[];
  get(sql: string, ...params: unknown[]): unknown;
}

export class SiteInstances {
  private readonly open = new Map<string, Partial<Record<SiteName, Database>>>();
  private counter = 0;

  constructor(private readonly snapshots: Readonly<Partial<Record<SiteName, Buffer>>>) {}

  create(): string {
    const id = `web-${++this.counter}`;
    this.open.set(id, {});
    return id;
  }

  has(id: string): boolean {
    return this.open.has(id);
  }

  get size(): number {
    return this.open.size;
  }

  /** The instance's database of `site`, opened from the snapshot on first use; undefined for an unknown id or an external site. */
  lookup(id: string, site: SiteName): Database | undefined {
    const dbs = this.open.get(id);
    const snapshot = this.snapshots[site];
    if (!dbs || !snapshot) return undefined;
    return (dbs[site] ??= openCopy(snapshot));
  }

  reset(id: string): void {
    const dbs = this.require(id);
    for (const db of Object.values(dbs)) db.close();
    this.open.set(id, {});
  }

  drop(id: string): void {
    const dbs = this.open.get(id);
    if (!dbs) return;
    for (const db of Object.values(dbs)) db.close();
    this.open.delete(id);
  }

  query(id: string, site: SiteName): SiteQuery {
    this.require(id);
    if (!this.snapshots[site]) throw new Error(`the ${site} site is external, so its state cannot be read`);
    const db = (): Database => {
      const found = this.lookup(id, site);
      if (!found) throw new Error(`env instance '${id}' was dropped`);
      return found;
    };
    const prepare = (sql: string) => {
      const statement = db().prepare(sql);
      if (!statement.readonly) throw new Error(`SiteQuery is read-only; refused: ${sql}`);
      return statement;
    };
    return { all: (sql, ...params) => prepare(sql).all(...params), get: (sql, ...params) => prepare(sql).get(...params) };
  }

  closeAll(): void {
    for (const id of [...this.open.keys()]) this.drop(id);
  }

  private require(id: string): Partial<Record<SiteName, Database>> {
    const dbs = this.open.get(id);
    if (!dbs) throw new Error(`unknown env instance '${id}' (never created, or dropped)`);
    return dbs;
  }
}
