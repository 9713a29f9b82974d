/**
 * A `--run` argument: `DIR`, or `LABEL=DIR` to name the run in the legend (overlays such as a
 * horizon experiment read better as `fixed-20=runs/a` than as `a`). An argument that is an
 * existing path is always a directory, even when it contains `=`.
 */
import { existsSync } from 'node:fs';

export function parseRunArg(arg: string): { readonly dir: string; readonly label?: string } {
  const split = arg.indexOf('=');
  if (split <= 0 || existsSync(arg)) return { dir: arg };
  return { label: arg.slice(0, split), dir: arg.slice(split + 1) };
}
