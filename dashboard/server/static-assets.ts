/**
 * The page and everything it loads, served from disk so the dashboard works offline: the page's
 * own ES modules and CSS (dashboard/web/, no build step) and uPlot from node_modules. Only files
 * listed at startup are served: a request cannot name a path outside them.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_DIR = fileURLToPath(new URL('../web/', import.meta.url));
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

export class StaticAssets {
  private readonly files = new Map<string, string>();
  private readonly cache = new Map<string, Asset>();

  constructor() {
    for (const name of readdirSync(WEB_DIR)) {
      if (path.extname(name) in TYPES) this.files.set(`/app/${name}`, path.join(WEB_DIR, name));
    }
    this.files.set('/', path.join(WEB_DIR, 'index.html'));
    const uplot = path.dirname(createRequire(import.meta.url).resolve('uplot'));
    this.files.set('/vendor/uplot.esm.js', path.join(uplot, 'uPlot.esm.js'));
    this.files.set('/vendor/uplot.min.css', path.join(uplot, 'uPlot.min.css'));
  }

  /** The asset at `urlPath`, or undefined when there is none. Read once, then kept in memory. */
  async get(urlPath: string): Promise<Asset | undefined> {
    const file = this.files.get(urlPath);
    if (file === undefined) return undefined;
    let asset = this.cache.get(urlPath);
    if (!asset) {
      asset = { body: await readFile(file), type: TYPES[path.extname(file)] ?? 'application/octet-stream' };
      this.cache.set(urlPath, asset);
    }
    return asset;
  }
}
