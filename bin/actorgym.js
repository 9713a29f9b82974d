#!/usr/bin/env node
// The `actorgym` command. Three layouts reach this file:
//  - the published package runs the compiled CLI: dist/cli/main.js (plain Node, no tsx);
//  - dist/bin/actorgym.js (the build's copy of this file) runs its sibling dist/cli/main.js;
//  - a checkout of the repository runs the TypeScript sources through tsx's loader, so
//    `npx actorgym` works straight after `npm ci` with no build step.
import { existsSync } from 'node:fs';

const here = (path) => new URL(path, import.meta.url);

if (existsSync(here('../cli/main.js'))) {
  await import('../cli/main.js');
} else if (existsSync(here('../cli/main.ts'))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
} else {
  await import('../dist/cli/main.js');
}
