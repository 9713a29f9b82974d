import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = join(root, 'policy', 'transformer', 'ops', 'wasm');

describe('committed wasm kernels', () => {
  it('are what their AssemblyScript sources build to (npm run build:wasm)', () => {
    const out = mkdtempSync(join(tmpdir(), 'actorgym-wasm-'));
    try {
      const run = spawnSync(process.execPath, [join(root, 'scripts', 'build-wasm.mjs'), '--out-dir', out], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const sources = readdirSync(dir).filter((f) => f.endsWith('.as.ts'));
      expect(sources.length).toBeGreaterThan(0);
      for (const source of sources) {
        const name = source.replace(/\.as\.ts$/, '.wasm');
        expect(Buffer.compare(readFileSync(join(out, name)), readFileSync(join(dir, name))), `${name} is stale: run npm run build:wasm`).toBe(0);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
