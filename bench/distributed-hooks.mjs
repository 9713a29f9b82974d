// Preloaded (`node --import`) into `bench distributed`'s child processes: loads the TypeScript
// hooks (distributed-hooks.ts) through tsx on the main thread only. Plain JS because `--import`
// is inherited by the learner's worker threads, which have no TypeScript loader and need no hook.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./distributed-hooks.ts');
}
