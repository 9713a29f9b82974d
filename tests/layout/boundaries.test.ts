/**
 * The layout's boundaries (docs/architecture.md): envs know no
 * framework and no wire, machines are pure, streams know no sockets, transport sits below the
 * servers and actors, the learner is handed what it calls (never a system), policy/ sees envs
 * only through the contract, bench/ and experiments/ use no test or CLI internals, and the
 * runtime does not depend on its viewer or its command line. Every relative import of every
 * source file is read (a regex over `from '…'`, `import '…'` and `import('…')`) and resolved to
 * the room it lands in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The rooms above the runtime's core: the entry points and tools built on top of it. */
const TOP = ['experiment-runner', 'cli', 'dashboard'] as const;

/** Room → rooms it must not import. */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  envs: ['streams', 'transport', 'policy', 'actors', 'learner', 'servers', 'eval', 'demos', ...TOP],
  machines: ['streams', 'transport', 'actors', 'learner', 'servers', 'eval', 'demos', ...TOP],
  streams: ['transport', 'actors', 'learner', 'servers', 'eval', 'demos', ...TOP],
  transport: ['servers', 'learner', 'actors', 'eval', 'demos', ...TOP],
  charts: ['actors', 'learner', 'servers', 'eval', 'demos', ...TOP],
  // Issue 35: the policy reads an env's prompt off its definition (envs/contract.ts, see ONLY).
  policy: ['streams', 'transport', 'learner', 'actors', 'eval', 'demos', 'servers', ...TOP],
  // The learner is handed the functions that collect rollouts and evaluate; it never calls a system.
  learner: ['actors', 'eval', 'demos', 'servers', 'transport', ...TOP],
  demos: ['actors', 'eval', 'servers', ...TOP],
  servers: ['actors', 'eval', 'demos', ...TOP],
  actors: ['servers', 'eval', ...TOP],
  eval: ['servers', ...TOP],
  'experiment-runner': ['cli', 'dashboard'],
  dashboard: ['cli'],
  // Benchmarks ship and experiments are read as the project's own usage: neither leans on test
  // helpers (nothing under tests/ ships) or on the command line's internals.
  bench: ['tests', 'cli'],
  experiments: ['tests', 'cli'],
};

/** Room → room it may import only these files of. */
const ONLY: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  // The env contract only (and the one errorMessage beside it): no env family, no registry (an
  // app's own env brings its own prompt).
  policy: { envs: ['envs/contract.ts', 'envs/error-message.ts'] },
};

const SPECIFIER = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers a source text imports or re-exports. */
function importSpecifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** Every broken boundary in a set of files (repo-relative path → text), as `file imports specifier (room)`. */
function boundaryViolations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const room = file.split('/')[0] ?? '';
    const forbidden = FORBIDDEN[room] ?? [];
    const only = ONLY[room] ?? {};
    for (const specifier of importSpecifiers(text)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const targetRoom = target.split('/')[0] ?? '';
      const allowed = only[targetRoom];
      if (forbidden.includes(targetRoom)) found.push(`${file} imports '${specifier}' (${targetRoom}/)`);
      else if (allowed && !allowed.includes(target)) found.push(`${file} imports '${specifier}' (${targetRoom}/ beyond ${allowed.join(', ')})`);
    }
  }
  return found;
}

function sourceFiles(room: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) files.set(relative, readFileSync(path.join(ROOT, relative), 'utf8'));
    }
  };
  walk(room);
  return files;
}

describe('the layout boundaries', () => {
  for (const [room, forbidden] of Object.entries(FORBIDDEN)) {
    const only = Object.entries(ONLY[room] ?? {}).map(([r, files]) => `, and of ${r}/ only ${files.join(', ')}`);
    it(`${room}/ imports nothing from ${forbidden.map((r) => `${r}/`).join(', ')}${only.join('')}`, () => {
      const files = sourceFiles(room);
      expect(files.size).toBeGreaterThan(0);
      expect(boundaryViolations(files)).toEqual([]);
    });
  }

  it('names the file and the import that break a boundary', () => {
    const files = new Map([
      ['envs/babyai/env.ts', "import { x } from '../../streams/events.ts';\nimport { y } from './world.ts';"],
      ['machines/run.machine.ts', "import type {\n  A,\n} from '../transport/wire/limits.ts';"],
      ['streams/events.ts', "import type { Split } from '../envs/contract.ts';"],
      ['actors/report.ts', "const chart = await import('../dashboard/report/line-chart.ts');"],
      ['transport/x.ts', "export { y } from '../actors/ops/health.ts';"],
      // Issue 35's rules, each planted once; the contract import beside them is allowed.
      ['policy/llm/prompt.ts', "import type { PromptTemplate } from '../../envs/contract.ts';\nimport { WEB_ACTION_GRAMMAR } from '../../envs/web/browser/grammar.ts';"],
      ['policy/llm/lookup.ts', "import { getEnv } from '../../envs/registry.ts';"],
      ['bench/web-browser.ts', "import { startFixtureServer } from '../tests/envs/web/fixtures/fixture-server.ts';"],
      ['experiments/diagnosis.ts', "import { table } from '../cli/output.ts';"],
      ['learner/collect.ts', "import { createRolloutSystem } from '../actors/rollout-system.ts';"],
      ['transport/index.ts', "export { startEnvServer } from '../servers/env-server/env-server.ts';"],
      ['servers/policy-server/x.ts', "import { y } from '../../actors/index.ts';"],
      ['demos/x.ts', "import { y } from '../actors/index.ts';"],
      ['actors/index.ts', "export { runEvaluation } from '../eval/run-eval.ts';"],
      ['eval/x.ts', "import { y } from '../servers/listener/health.ts';"],
      ['experiment-runner/x.ts', "import { y } from '../cli/output.ts';"],
      ['dashboard/x.ts', "import { y } from '../cli/output.ts';"],
    ]);
    expect(boundaryViolations(files)).toEqual([
      "envs/babyai/env.ts imports '../../streams/events.ts' (streams/)",
      "machines/run.machine.ts imports '../transport/wire/limits.ts' (transport/)",
      "actors/report.ts imports '../dashboard/report/line-chart.ts' (dashboard/)",
      "transport/x.ts imports '../actors/ops/health.ts' (actors/)",
      "policy/llm/prompt.ts imports '../../envs/web/browser/grammar.ts' (envs/ beyond envs/contract.ts, envs/error-message.ts)",
      "policy/llm/lookup.ts imports '../../envs/registry.ts' (envs/ beyond envs/contract.ts, envs/error-message.ts)",
      "bench/web-browser.ts imports '../tests/envs/web/fixtures/fixture-server.ts' (tests/)",
      "experiments/diagnosis.ts imports '../cli/output.ts' (cli/)",
      "learner/collect.ts imports '../actors/rollout-system.ts' (actors/)",
      "transport/index.ts imports '../servers/env-server/env-server.ts' (servers/)",
      "servers/policy-server/x.ts imports '../../actors/index.ts' (actors/)",
      "demos/x.ts imports '../actors/index.ts' (actors/)",
      "actors/index.ts imports '../eval/run-eval.ts' (eval/)",
      "eval/x.ts imports '../servers/listener/health.ts' (servers/)",
      "experiment-runner/x.ts imports '../cli/output.ts' (cli/)",
      "dashboard/x.ts imports '../cli/output.ts' (cli/)",
    ]);
  });
});
