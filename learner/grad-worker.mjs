// The learner worker's entry. Worker threads start plain Node: in the compiled package the body
// is ./grad-worker.js; in a checkout of the sources it is TypeScript, so register tsx's loader
// first (as bin/actorgym.js does).
import { existsSync } from 'node:fs';

if (existsSync(new URL('./grad-worker.js', import.meta.url))) {
  await import('./grad-worker.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./grad-worker.ts');
}
