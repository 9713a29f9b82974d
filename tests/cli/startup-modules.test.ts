/**
 * Issue 26, start-up: `--help`, `envs`, a command's own `--help` and a mistyped command load no
 * TensorFlow.js (nor the OpenAI client, vega, or the web env's hono, SQLite and playwright): each command imports its heavy parts only when
 * it runs. Checked by tracing every module the process resolves.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './run-cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'actorgym-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TRACE = fileURLToPath(new URL('./support/module-trace.mjs', import.meta.url));

/** The module URLs `actorgym ...args` resolved, and its exit code. */
function loadedModules(args: readonly string[]): Promise<{ code: number; modules: string[] }> {
  const file = path.join(dir, `${args.join('_').replace(/\W/g, '') || 'none'}.txt`);
  writeFileSync(file, '');
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TRACE, BIN, ...args], { env: { ...process.env, ACTORGYM_TRACE_MODULES: file } }, (error) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, modules: readFileSync(file, 'utf8').trim().split('\n') });
    });
  });
}

// The web env's server, database and browser driver load on its first reset, not with the registry.
const HEAVY = /node_modules\/(@tensorflow|openai|vega|hono|@hono|better-sqlite3|playwright-core)/;

describe('actorgym start-up', () => {
  it.each([[['--help']], [['envs']], [[]], [['rollout', '--help']], [['train', '--help']], [['eval', '--help']], [['export', '--help']], [['sft', '--help']], [['serve-policy', '--help']], [['rolout']]])(
    'actorgym %j loads no TensorFlow.js, OpenAI client, vega or web-env runtime',
    async (args) => {
      const { modules } = await loadedModules(args);
      // The trace works: the CLI's own modules are in it.
      expect(modules.some((url) => url.includes('/cli/main.'))).toBe(true);
      expect(modules.filter((url) => HEAVY.test(url))).toEqual([]);
    },
  );

  it('a command that runs an agent still loads what it needs (the trace sees tfjs when it is there)', async () => {
    const { code, modules } = await loadedModules(['rollout', '--env', 'babyai', '--episodes', '1', '--horizon', '1', '--agent', 'checkpoint:/nonexistent-dir']);
    expect(code).not.toBe(0);
    expect(modules.some((url) => /node_modules\/@tensorflow\/tfjs/.test(url))).toBe(true);
  });
});
