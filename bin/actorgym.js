#!/usr/bin/env node
// The CLI is TypeScript run through tsx's loader, so `npx actorgym` works straight after `npm ci`
// with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
