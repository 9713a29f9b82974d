/**
 * `npm run build` (and `prepack`): compiles the package into dist/ with TypeScript's own emit
 * (tsconfig.build.json) and copies the files the code reads at run time beside it, at the same
 * relative paths, so `new URL('./x', import.meta.url)` finds them in the build as in the sources.
 * dist/ is rebuilt from empty, so a tarball never ships a stale or deleted module.
 *
 * Source maps (.js.map) and declaration maps (.d.ts.map, an editor's "go to definition") name the
 * .ts files they were compiled from. Those are copied to dist/sources/ and every map is pointed at
 * its copy, so each map names a file that ships. They sit apart from the .d.ts files on purpose: a
 * .ts beside a .d.ts would be what an app's TypeScript resolves, and type-checks, first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
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
  'envs/web/fixtures/pages',
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
const sources = shipMapSources();
console.error(`actorgym build: dist/ written (${ASSETS.length} asset paths copied, ${sources} sources under dist/sources/ for the maps)`);

/** Copies each .ts a map names to dist/sources/<its repository path> and points the map at the copy. */
function shipMapSources() {
  const shipped = new Set();
  for (const map of listFiles(dist).filter((file) => file.endsWith('.map'))) {
    const json = JSON.parse(readFileSync(map, 'utf8'));
    json.sources = json.sources.map((source) => {
      const original = resolve(dirname(map), json.sourceRoot ?? '', source);
      const inRepo = relative(root, original);
      if (inRepo.startsWith('..')) throw new Error(`actorgym build: ${relative(root, map)} names ${source}, outside the repository`);
      const copy = join(dist, 'sources', inRepo);
      if (!shipped.has(copy)) {
        mkdirSync(dirname(copy), { recursive: true });
        cpSync(original, copy);
        shipped.add(copy);
      }
      return relative(dirname(map), copy).split('\\').join('/');
    });
    delete json.sourceRoot;
    writeFileSync(map, JSON.stringify(json));
  }
  return shipped.size;
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
