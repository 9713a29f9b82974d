// The learner worker's entry: worker threads start plain Node, so register tsx's loader here
// (as bin/actorgym.js does) before the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./grad-worker.ts');
