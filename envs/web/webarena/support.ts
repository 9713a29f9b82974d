/**
 * Whether actorgym can score a task as WebArena would: every evaluator it names must be runnable
 * here. A task that cannot be is skipped when loaded, with this reason, never scored 0 quietly.
 */
import { existsSync } from 'node:fs';
import type { WebArenaConfig } from './config-schema.ts';
import { unsupportedTarget } from './program-html.ts';

export interface SupportOptions {
  /** Whether an LLM judge was given (fuzzy_match needs one, except for `N/A`). */
  readonly judge: boolean;
}

/** The first reason the task cannot be scored here, or undefined when it can. */
export function unsupportedReason(config: WebArenaConfig, storageState: string | undefined, options: SupportOptions): string | undefined {
  const types = new Set(config.eval.eval_types);
  const fuzzy = config.eval.reference_answers?.fuzzy_match;
  if (types.has('string_match') && fuzzy !== undefined && fuzzy !== 'N/A' && !options.judge) {
    return 'string_match with fuzzy_match needs an LLM judge, and none was given';
  }
  if (types.has('program_html')) {
    for (const target of config.eval.program_html ?? []) {
      const why = unsupportedTarget(target);
      if (why) return why;
    }
  }
  if (config.require_login && storageState !== undefined && !existsSync(storageState)) {
    return `it requires login and its storage state ${storageState} is missing (write it with WebArena's browser_env/auto_login.py against your sites, or set ACTORGYM_WEBARENA_AUTH_DIR to the folder that holds it)`;
  }
  return undefined;
}
