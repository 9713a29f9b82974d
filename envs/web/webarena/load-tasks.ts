/**
 * Loads WebArena task configs: a directory of `*.json` files (one task each, as WebArena's
 * generate_test_data.py writes them, or arrays) or one file (`test.raw.json`, an array). Every
 * config is checked against the schema (an error names the file, the task and the field), task
 * ids must be unique, placeholders are replaced by the site URLs from the environment (a missing
 * variable is an error naming it), and tasks that cannot be scored here are set aside with the
 * reason.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { EnvError } from '../../contract.ts';
import { describeConfigError, webArenaConfigSchema, type WebArenaConfig, type WebArenaSite } from './config-schema.ts';
import { originsOf, placeholderSites, readExtraOrigins, readSiteUrls, replacePlaceholders } from './site-urls.ts';
import { unsupportedReason } from './support.ts';
import type { SkippedWebArenaTask, WebArenaTask } from './task.ts';

export interface LoadWebArenaOptions {
  /** Where the site URL variables are read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Whether an LLM judge will score fuzzy_match (default false: those tasks are skipped). */
  readonly judge?: boolean;
  /** Relative storage_state paths resolve against this (default the working directory, as WebArena runs from its root). */
  readonly cwd?: string;
}

export interface LoadedWebArenaTasks {
  /** In task_id order. */
  readonly tasks: readonly WebArenaTask[];
  readonly skipped: readonly SkippedWebArenaTask[];
  /** The base URL of every site the tasks use. */
  readonly siteUrls: Readonly<Partial<Record<WebArenaSite, string>>>;
}

interface RawConfig {
  readonly file: string;
  readonly config: WebArenaConfig;
}

const MAX_LISTED_ERRORS = 5;

/** The JSON files of `source`, in natural order (2.json before 10.json). */
function configFiles(source: string): string[] {
  if (!existsSync(source)) throw new EnvError('TASK_UNKNOWN', `webarena: ${source} does not exist (give a folder of WebArena config files or one JSON file)`);
  if (!statSync(source).isDirectory()) return [source];
  const names = readdirSync(source).filter((name) => name.endsWith('.json'));
  names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (names.length === 0) throw new EnvError('TASK_UNKNOWN', `webarena: ${source} holds no .json config files`);
  return names.map((name) => path.join(source, name));
}

function readConfigs(files: readonly string[]): RawConfig[] {
  const configs: RawConfig[] = [];
  const errors: string[] = [];
  for (const file of files) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      errors.push(`${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    const items = Array.isArray(data) ? data : [data];
    items.forEach((item, index) => {
      const parsed = webArenaConfigSchema.safeParse(item);
      const where = `${file}${Array.isArray(data) ? `[${index}]` : ''}`;
      const taskId = typeof (item as { task_id?: unknown })?.task_id === 'number' ? ` (task ${(item as { task_id: number }).task_id})` : '';
      if (parsed.success) configs.push({ file: where, config: parsed.data });
      else errors.push(`${where}${taskId}: ${describeConfigError(parsed.error)}`);
    });
  }
  if (errors.length > 0) {
    const more = errors.length > MAX_LISTED_ERRORS ? ` (and ${errors.length - MAX_LISTED_ERRORS} more)` : '';
    throw new EnvError('PROTOCOL_ERROR', `webarena: invalid task config: ${errors.slice(0, MAX_LISTED_ERRORS).join('; ')}${more}`);
  }
  return configs;
}

function checkUniqueIds(configs: readonly RawConfig[]): void {
  const seen = new Map<number, string>();
  for (const { file, config } of configs) {
    const first = seen.get(config.task_id);
    if (first !== undefined) throw new EnvError('PROTOCOL_ERROR', `webarena: task_id ${config.task_id} appears twice, in ${first} and ${file} (point at one file or a folder without duplicates)`);
    seen.set(config.task_id, file);
  }
}

/** Each site the configs use (listed in `sites` or as a placeholder), with the tasks that use it. */
function sitesNeeded(configs: readonly RawConfig[]): Map<WebArenaSite, string[]> {
  const needed = new Map<WebArenaSite, string[]>();
  for (const { config } of configs) {
    for (const site of placeholderSites(config, new Set(config.sites))) needed.set(site, [...(needed.get(site) ?? []), String(config.task_id)]);
  }
  return needed;
}

function storageStateOf(config: WebArenaConfig, options: LoadWebArenaOptions): string | undefined {
  if (!config.require_login || !config.storage_state) return undefined;
  const authDir = (options.env ?? process.env).ACTORGYM_WEBARENA_AUTH_DIR?.trim();
  if (authDir && !path.isAbsolute(config.storage_state)) return path.resolve(authDir, path.basename(config.storage_state));
  return path.resolve(options.cwd ?? process.cwd(), config.storage_state);
}

function startUrlsOf(config: WebArenaConfig, file: string): string[] {
  const urls = config.start_url.split(' |AND| ').map((url) => url.trim());
  for (const url of urls) {
    if (!/^https?:\/\/[^/\s]/.test(url)) {
      throw new EnvError('PROTOCOL_ERROR', `webarena: ${file} (task ${config.task_id}): start_url: '${url}' is not an http(s) URL after its placeholders were replaced`);
    }
  }
  return urls;
}

/** Reads, checks and resolves the task configs at `source` (a folder or one JSON file). */
export function loadWebArenaTasks(source: string, options: LoadWebArenaOptions = {}): LoadedWebArenaTasks {
  const configs = readConfigs(configFiles(source));
  checkUniqueIds(configs);
  const needed = sitesNeeded(configs);
  const siteUrls = readSiteUrls(needed, options.env ?? process.env);
  const extraOrigins = readExtraOrigins(options.env ?? process.env);
  const tasks: WebArenaTask[] = [];
  const skipped: SkippedWebArenaTask[] = [];
  for (const { file, config: raw } of configs) {
    const config = replacePlaceholders(raw, siteUrls);
    const id = String(config.task_id);
    const storageState = storageStateOf(config, options);
    const reason = unsupportedReason(config, storageState, { judge: options.judge === true });
    if (reason !== undefined) {
      skipped.push({ id, file, reason });
      continue;
    }
    tasks.push({
      id,
      file,
      config,
      sites: config.sites,
      startUrls: startUrlsOf(config, file),
      allowedOrigins: [...new Set([...originsOf(placeholderSites(raw, new Set(config.sites)), siteUrls), ...extraOrigins])],
      ...(storageState !== undefined ? { storageState } : {}),
      category: [...new Set(config.sites)].sort().join('+'),
    });
  }
  const byId = (a: { id: string }, b: { id: string }): number => Number(a.id) - Number(b.id);
  return { tasks: tasks.sort(byId), skipped: skipped.sort(byId), siteUrls };
}
