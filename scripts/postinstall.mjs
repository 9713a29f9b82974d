/**
 * npm's postinstall: applies `patches/` (the xstate fast paths, docs/benchmarks.md) with
 * patch-package. In a checkout of this repository patch-package is installed and a patch that no
 * longer applies fails the install. Where actorgym is installed as someone else's dependency,
 * patch-package (a dev dependency) is absent and xstate stays as published: same behaviour, slower.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'node_modules', 'patch-package', 'index.js');
if (!existsSync(bin)) {
  console.log('actorgym: patch-package is not installed; xstate is used unpatched (see docs/benchmarks.md)');
  process.exit(0);
}
const result = spawnSync(process.execPath, [bin, '--error-on-fail'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
