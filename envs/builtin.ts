/** Registers the environments that ship with actorgym. Imported once by `envs/index.ts`. */
import { babyaiDefinition } from './babyai/index.ts';
import { registerEnv } from './registry.ts';

registerEnv(babyaiDefinition);
