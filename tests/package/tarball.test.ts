/**
 * The package as an app gets it: `npm pack` (which builds dist/ on prepack), the tarball installed
 * into a fresh temporary app, then
 *  - the README's first embedding snippet (a rollout), copied from the README, run with plain `node`;
 *  - TypeScript copies of every embedding snippet type-checked under `tsc --init`'s defaults
 *    (strict, NodeNext); the training one is only type-checked (a run takes minutes);
 *  - the installed CLI answering `--help` and `envs` without tsx (an app does not have it).
 * Installing needs the npm registry (or a warm npm cache), as `npm ci` does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeEmbedSnippets } from './readme-snippet.ts';

const root = resolve(import.meta.dirname, '../..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
let work = '';
let app = '';

const [rollout, ...others] = readmeEmbedSnippets(join(root, 'README.md'));
/** The rollout snippet ends with `const summary = await system.run();`: print it so the test can read the run. */
const snippet = `${rollout}console.log(JSON.stringify({ summary: { episodes: summary.episodes, outcomes: summary.outcomes } }));\n`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'actorgym-pack-'));
  execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
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
