/**
 * The package as an app gets it: `npm pack` (which builds dist/ on prepack), the tarball installed
 * into a fresh temporary app, then
 *  - the README's first embedding snippet (a rollout), copied from the README, run with plain `node`;
 *  - TypeScript copies of every embedding snippet type-checked under `tsc --init`'s defaults
 *    (strict, NodeNext); the training one is only type-checked (a run takes minutes);
 *  - the same snippets type-checked with the oldest TypeScript the package states it supports
 *    (OLDEST_TYPESCRIPT, installed from the registry at test time);
 *  - the installed CLI answering `--help` and `envs` without tsx (an app does not have it);
 *  - what ships (issue 35): nothing from tests/, every file a source or declaration map names, and
 *    every docs/ file the README links to.
 * Installing needs the npm registry (or a warm npm cache), as `npm ci` does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeEmbedSnippets } from './readme-snippet.ts';

const root = resolve(import.meta.dirname, '../..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
let work = '';
let app = '';
/** The tarball's files, as `npm pack --json` lists them (paths relative to the package root). */
let packed: string[] = [];

/**
 * The oldest TypeScript the public types and the README's snippets are checked with (issue 35).
 * 5.0 is the floor asked about; the snippets narrow events with `if`, not with a `filter` whose
 * inferred type predicate would need 5.5.
 */
const OLDEST_TYPESCRIPT = '5.0.4';

const [rollout, ...others] = readmeEmbedSnippets(join(root, 'README.md'));
/** The rollout snippet ends with `const summary = await system.run();`: print it so the test can read the run. */
const snippet = `${rollout}console.log(JSON.stringify({ summary: { episodes: summary.episodes, outcomes: summary.outcomes } }));\n`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'actorgym-pack-'));
  const listing = execFileSync('npm', ['pack', '--pack-destination', work, '--json', '--silent'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  // prepack's build logs go to stderr; stdout is npm's JSON (an array with one entry per package).
  packed = (JSON.parse(listing.slice(listing.indexOf('['))) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${work}`);
  app = join(work, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', join(work, tarball), '--no-audit', '--no-fund', '--prefer-offline', '--silent'], { cwd: app, stdio: ['ignore', 'ignore', 'pipe'] });
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball in a fresh app', () => {
  it('ships compiled JavaScript with declarations, not TypeScript sources', () => {
    const pkg = join(app, 'node_modules', 'actorgym');
    expect(existsSync(join(pkg, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(pkg, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(pkg, 'index.ts'))).toBe(false);
    expect(existsSync(join(pkg, 'tests'))).toBe(false);
    // The peers the README's snippet imports resolve from the app itself.
    expect(existsSync(join(app, 'node_modules', 'rxjs', 'package.json'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'xstate', 'package.json'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
  });

  it("runs the README's embedding snippet with plain node", () => {
    writeFileSync(join(app, 'embed.mjs'), snippet);
    const run = spawnSync(process.execPath, ['embed.mjs'], { cwd: app, encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const { summary } = JSON.parse(lines.at(-1)!) as { summary: { episodes: number; outcomes: Record<string, number> } };
    expect(summary.episodes).toBe(64);
    // The snippet's subscriber printed one line per finished episode.
    expect(lines.slice(0, -1).filter((line) => /^\S+\/\d+ (success|failure|truncated|aborted)$/.test(line))).toHaveLength(64);
    expect(Object.values(summary.outcomes).reduce((a, b) => a + b, 0)).toBe(64);
  });

  it('type-checks every embedding snippet under tsc --init defaults (strict, NodeNext) with zero errors', () => {
    execFileSync(process.execPath, [tsc, '--init'], { cwd: app, stdio: 'ignore' });
    writeFileSync(join(app, 'embed.ts'), snippet);
    // Each snippet is its own module (tsc --init sets moduleDetection: force).
    others.forEach((other, i) => writeFileSync(join(app, `embed-${i + 2}.ts`), other));
    expect(others.length).toBeGreaterThan(0);
    const check = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit'], { cwd: app, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    // The check sees our types: a wrong use of them is an error.
    writeFileSync(join(app, 'embed.ts'), `${snippet}const wrong: number = summary.env;\n`);
    const bad = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit'], { cwd: app, encoding: 'utf8' });
    expect(bad.stdout).toMatch(/embed\.ts\(\d+,\d+\): error TS2322/);
  });

  it(`type-checks every embedding snippet with the oldest supported TypeScript (${OLDEST_TYPESCRIPT}) under strict NodeNext`, () => {
    const oldest = join(work, 'typescript-oldest');
    mkdirSync(oldest);
    writeFileSync(join(oldest, 'package.json'), JSON.stringify({ private: true }));
    execFileSync('npm', ['install', `typescript@${OLDEST_TYPESCRIPT}`, '--no-audit', '--no-fund', '--prefer-offline', '--silent'], { cwd: oldest, stdio: ['ignore', 'ignore', 'pipe'] });
    const oldTsc = join(oldest, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(execFileSync(process.execPath, [oldTsc, '--version'], { encoding: 'utf8' }).trim()).toBe(`Version ${OLDEST_TYPESCRIPT}`);
    // Its own options: `tsc --init` of today writes options 5.0 does not know. The same strictness.
    const check = join(app, 'oldest');
    mkdirSync(check);
    writeFileSync(join(check, 'package.json'), JSON.stringify({ name: 'oldest', private: true, type: 'module' }));
    writeFileSync(join(check, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, moduleDetection: 'force' },
      include: ['*.ts'],
    }));
    writeFileSync(join(check, 'embed.ts'), snippet);
    others.forEach((other, i) => writeFileSync(join(check, `embed-${i + 2}.ts`), other));
    const run = spawnSync(process.execPath, [oldTsc, '-p', '.'], { cwd: check, encoding: 'utf8' });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
    // And it sees our types.
    writeFileSync(join(check, 'embed.ts'), `${snippet}const wrong: number = summary.env;\n`);
    const bad = spawnSync(process.execPath, [oldTsc, '-p', '.'], { cwd: check, encoding: 'utf8' });
    expect(bad.stdout).toMatch(/embed\.ts\(\d+,\d+\): error TS2322/);
  }, 300_000);

  it('ships nothing from tests/ (issue 35)', () => {
    expect(packed.length).toBeGreaterThan(100);
    expect(packed.filter((path) => /^(dist\/(sources\/)?)?tests\//.test(path))).toEqual([]);
  });

  it('ships the file every source map and declaration map names (issue 35)', () => {
    const pkg = join(app, 'node_modules', 'actorgym');
    const maps = packed.filter((path) => path.endsWith('.map'));
    expect(maps).toContain('dist/index.d.ts.map');
    expect(maps).toContain('dist/index.js.map');
    const missing = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(join(pkg, map), 'utf8')) as { sources: string[] };
      return sources.map((source) => relative(pkg, resolve(pkg, dirname(map), source))).filter((path) => !packed.includes(path)).map((path) => `${map} → ${path}`);
    });
    expect(missing).toEqual([]);
  });

  it("ships every docs/ file the README links to (issue 35)", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]!);
    expect(linked.length).toBeGreaterThan(10);
    expect([...new Set(linked)].filter((path) => !packed.includes(path))).toEqual([]);
  });

  it('runs the installed CLI from the build, without tsx', () => {
    const bin = join(app, 'node_modules', '.bin', 'actorgym');
    const help = spawnSync(bin, ['--help'], { cwd: app, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: actorgym/);
    const envs = spawnSync(bin, ['envs'], { cwd: app, encoding: 'utf8' });
    expect(envs.status).toBe(0);
    expect(envs.stdout).toMatch(/babyai\s+1440\s+90/);
  });
});
