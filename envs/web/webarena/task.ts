/** A WebArena task as loaded: its config with placeholders replaced, and what the run needs from it. */
import type { WebArenaConfig, WebArenaSite } from './config-schema.ts';

export interface WebArenaTask {
  /** `String(task_id)`. */
  readonly id: string;
  /** The file the config came from (for errors). */
  readonly file: string;
  /** The config, every placeholder replaced by the user's site URL. */
  readonly config: WebArenaConfig;
  readonly sites: readonly WebArenaSite[];
  /** `start_url` split at ` |AND| `: one tab each, the first current. */
  readonly startUrls: readonly string[];
  /** The origins of the task's sites (and ACTORGYM_WEBARENA_EXTRA_ORIGINS): the browser's allow-list. */
  readonly allowedOrigins: readonly string[];
  /** Absolute path of the Playwright storage state to log in with, when `require_login`. */
  readonly storageState?: string;
  /** The evaluation category: the sites in alphabetical order joined by `+` (`gitlab+reddit`). */
  readonly category: string;
}

/** A task the loader left out, and why (an unsupported evaluator, no judge, no login state). */
export interface SkippedWebArenaTask {
  readonly id: string;
  readonly file: string;
  readonly reason: string;
}
