/**
 * WebArena's own tasks on sites the user hosts: `--env webarena:PATH` (a folder of WebArena config
 * files, or `test.raw.json`), each site's URL from `ACTORGYM_WEB_<SITE>_URL`, scored by WebArena's
 * evaluators (string_match, url_match, program_html). See docs/envs/webarena.md.
 * This file stays light: the browser loads on the first reset.
 */
import { EnvError, type EnvDefinition, type EnvSpec } from '../../contract.ts';
import { webPrompt } from '../prompt.ts';
import { WebArenaEnv, type WebArenaEnvOptions } from './env.ts';
import { loadWebArenaTasks, type LoadedWebArenaTasks, type LoadWebArenaOptions } from './load-tasks.ts';

/** The registry family: `webarena:PATH`. */
export const WEBARENA_FAMILY = 'webarena';

/** WebArena's own step limit (run.py `--max_steps`). */
export const WEBARENA_DEFAULT_HORIZON = 30;

/** Options of `createWebArenaDefinition`: where the tasks are, the judge, the site variables and the browser's options. */
export interface WebArenaDefinitionOptions extends WebArenaEnvOptions, Omit<LoadWebArenaOptions, 'judge'> {
  /** A folder of WebArena config files, or one JSON file (an object or an array of them). */
  readonly tasks: string;
  /** The spec id (default `webarena:<tasks>`, what `getEnv` resolves). */
  readonly id?: string;
}

/** An env definition over loaded WebArena tasks; `loaded` says which were skipped and why. */
export interface WebArenaDefinition extends EnvDefinition {
  readonly loaded: LoadedWebArenaTasks;
}

/**
 * Loads the tasks at `options.tasks` and makes their env definition. All tasks are in the `test`
 * split (WebArena is a test set); `train` is empty. Task ids are WebArena's task_id; categories
 * are the sites, sorted (`shopping`, `gitlab+reddit`).
 */
export function createWebArenaDefinition(options: WebArenaDefinitionOptions): WebArenaDefinition {
  const loaded = loadWebArenaTasks(options.tasks, { ...options, judge: options.judge !== undefined });
  const byId = new Map(loaded.tasks.map((task) => [task.id, task]));
  const ids = loaded.tasks.map((task) => task.id);
  const skippedNote = loaded.skipped.length > 0 ? `; ${loaded.skipped.length} skipped` : '';
  const spec: EnvSpec = {
    id: options.id ?? `${WEBARENA_FAMILY}:${options.tasks}`,
    description: `WebArena tasks from ${options.tasks} on your own sites (${ids.length} tasks${skippedNote})`,
    defaultHorizon: WEBARENA_DEFAULT_HORIZON,
    splits: { train: 0, test: ids.length },
    maxReward: 1,
  };
  return {
    spec,
    loaded,
    tasks: (split) => (split === 'test' ? ids : []),
    make: () => new WebArenaEnv(spec, byId, options),
    categoryOf(taskId) {
      const task = byId.get(taskId);
      if (!task) throw new EnvError('TASK_UNKNOWN', `webarena: no task "${taskId}" in ${spec.id}`);
      return task.category;
    },
    prompt: webPrompt,
  };
}

/** One line per reason: `12 task(s) skipped: <reason> (tasks 3, 7, …)`. */
export function describeSkipped(loaded: LoadedWebArenaTasks): string[] {
  const byReason = new Map<string, string[]>();
  for (const task of loaded.skipped) byReason.set(task.reason, [...(byReason.get(task.reason) ?? []), task.id]);
  return [...byReason].map(([reason, ids]) => `${ids.length} task(s) skipped: ${reason} (task${ids.length > 1 ? 's' : ''} ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`);
}

/**
 * The registry's `webarena:PATH` factory: the tasks at PATH, no judge (fuzzy_match tasks are
 * skipped), the skipped tasks announced once as a process warning (stderr).
 */
export function webArenaFamilyDefinition(path: string): EnvDefinition {
  if (path.trim() === '') throw new EnvError('ENV_UNKNOWN', 'webarena needs its task configs: --env webarena:DIR (a folder of WebArena config files, or test.raw.json)');
  const definition = createWebArenaDefinition({ tasks: path });
  for (const line of describeSkipped(definition.loaded)) process.emitWarning(`webarena: ${line}`, { code: 'ACTORGYM_WEBARENA_SKIPPED' });
  return definition;
}

export { WebArenaEnv, type WebArenaEnvOptions } from './env.ts';
export { loadWebArenaTasks, type LoadedWebArenaTasks, type LoadWebArenaOptions } from './load-tasks.ts';
export { evaluateWebArenaTask, describeVerdict, type WebArenaEpisodeEnd, type WebArenaVerdict } from './evaluate.ts';
export { webArenaConfigSchema, WEBARENA_SITES, WEBARENA_EVAL_TYPES, type WebArenaConfig, type WebArenaSite } from './config-schema.ts';
export { webArenaJudgeMessages, readJudgeVerdict, webArenaJudgeFromChat, type WebArenaJudge, type WebArenaJudgeChat, type WebArenaJudgeRequest } from './judge.ts';
export { siteUrlVariable, SITE_PLACEHOLDERS } from './site-urls.ts';
export type { WebArenaPage } from './program-html.ts';
export type { WebArenaTask, SkippedWebArenaTask } from './task.ts';
