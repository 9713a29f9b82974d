/**
 * The layout's boundaries (DESIGN.md "Layout"): envs know no framework and no wire, machines are
 * pure, streams know no sockets, transport sits below the actors, and the runtime does not depend
 * on its viewer or its command line. Every relative import of every source file is read (a regex
 * over `from '…'`, `import '…'` and `import('…')`) and resolved to the room it lands in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Room → rooms it must not import. */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  envs: ['streams', 'transport', 'actors', 'cli', 'dashboard'],
  machines: ['streams', 'transport', 'actors', 'cli', 'dashboard'],
  streams: ['transport', 'actors', 'cli', 'dashboard'],
  transport: ['actors', 'cli', 'dashboard'],
  charts: ['actors', 'cli', 'dashboard'],
  actors: ['dashboard', 'cli'],
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
    const forbidden = FORBIDDEN[room];
    if (!forbidden) continue;
    for (const specifier of importSpecifiers(text)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const targetRoom = target.split('/')[0] ?? '';
      if (forbidden.includes(targetRoom)) found.push(`${file} imports '${specifier}' (${targetRoom}/)`);
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
    it(`${room}/ imports nothing from ${forbidden.map((r) => `${r}/`).join(', ')}`, () => {
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
    ]);
    expect(boundaryViolations(files)).toEqual([
      "envs/babyai/env.ts imports '../../streams/events.ts' (streams/)",
      "machines/run.machine.ts imports '../transport/wire/limits.ts' (transport/)",
      "actors/report.ts imports '../dashboard/report/line-chart.ts' (dashboard/)",
      "transport/x.ts imports '../actors/ops/health.ts' (actors/)",
    ]);
  });
});
