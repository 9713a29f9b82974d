// Module resolution hooks for tests/cli/startup-modules.test.ts: appends every resolved URL to
// the file in ACTORGYM_TRACE_MODULES, so a test can tell what a command loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.ACTORGYM_TRACE_MODULES, `${result.url}\n`);
  return result;
}
