/**
 * `npm run build` (and `prepack`): compiles the package into dist/ with TypeScript's own emit
 * (tsconfig.build.json) and copies the files the code reads at run time beside it, at the same
 * relative paths, so `new URL('./x', import.meta.url)` finds them in the build as in the sources.
 * dist/ is rebuilt from empty, so a tarball never ships a stale or deleted module.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** Non-TypeScript files the modules load by path; each is copied to dist/ at the same place. */
const ASSETS = [
  'bin/actorgym.js',
  'learner/grad-worker.mjs',
  'policy/tfjs-gradients.js',
  'policy/transformer/ops/wasm/attention.wasm',
  'envs/textcraft/data/recipes-1.16.json',
  'dashboard/web',
];

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error('actorgym build: tsc failed (see above); dist/ is incomplete and was removed');
  rmSync(dist, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
for (const asset of ASSETS) {
  const from = join(root, asset);
  if (!existsSync(from)) {
    console.error(`actorgym build: ${asset} is missing (run \`npm run build:wasm\` for the .wasm kernel)`);
    rmSync(dist, { recursive: true, force: true });
    process.exit(1);
  }
  mkdirSync(dirname(join(dist, asset)), { recursive: true });
  cpSync(from, join(dist, asset), { recursive: true });
}
console.error(`actorgym build: dist/ written (${ASSETS.length} asset paths copied)`);
