/**
 * Builds the AssemblyScript kernels into the .wasm files that are committed next to them
 * (policy/transformer/ops/wasm/*.as.ts → *.wasm). `npm run build:wasm` after editing a kernel;
 * tests/policy/wasm-build.test.ts checks that the committed binaries are what their sources build to.
 *
 *   node scripts/build-wasm.mjs [--out-dir DIR]   (default: next to the sources)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'policy', 'transformer', 'ops', 'wasm');
const at = process.argv.indexOf('--out-dir');
const outDir = at > 0 ? process.argv[at + 1] : dir;
if (!outDir) throw new Error('--out-dir needs a directory');
// No runtime, no abort strings, imported memory: the module must carry no data segment.
const flags = ['-O3', '--noAssert', '--runtime', 'stub', '--importMemory', '--noExportMemory', '--use', 'abort=', '--enable', 'simd'];
const asc = join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js');
for (const file of readdirSync(dir).filter((f) => f.endsWith('.as.ts'))) {
  const out = join(outDir, file.replace(/\.as\.ts$/, '.wasm'));
  const run = spawnSync(process.execPath, [asc, join(dir, file), ...flags, '-o', out], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  console.log(`built ${out}`);
}
