// `node --import ./module-trace.mjs …`: registers module-trace-hooks.mjs for the whole process.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url);
