/**
 * Every relative link in README.md and docs/**\/*.md points to a file that exists, every
 * `#anchor` into a markdown file to one of its headings, and every repository path the guides name
 * (outside the dated notes) exists (issue 26: docs that read as a guide).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, headingSlug, missingRepoPaths } from './markdown-links.ts';

const root = join(import.meta.dirname, '..', '..');
/** Folders of generated or local files, whose paths in the docs are examples (`runs/a`). */
const IGNORED_FOLDERS = new Set(['node_modules', 'dist', 'runs', 'evals']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('documentation links', () => {
  const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

  it('finds the README and the docs', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('every relative link in README.md and docs/ resolves', () => {
    const broken = files
      .flatMap((file) => brokenLinks(file))
      .map((link) => `${relative(root, link.file)}:${link.line}: ${link.target} (${link.reason})`);
    expect(broken).toEqual([]);
  });

  // Notes are records of their date: the paths they name may since have moved.
  it('every repository path named in README.md and docs/ outside docs/notes exists', () => {
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !IGNORED_FOLDERS.has(entry.name) && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
    expect(folders).toContain('actors');
    const missing = files
      .filter((file) => !file.includes(`${join('docs', 'notes')}`))
      .flatMap((file) => missingRepoPaths(file, root, folders))
      .map((path) => `${relative(root, path.file)}:${path.line}: ${path.path}`);
    expect(missing).toEqual([]);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'actorgym-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports a missing file and a missing anchor, and passes good links, code and URLs', () => {
    writeFileSync(join(dir, 'other.md'), '# Other page\n\n## The `serve` command — usage (issue 2)\n');
    const page = join(dir, 'page.md');
    writeFileSync(
      page,
      [
        '# Page',
        '[ok](other.md) [ok anchor](other.md#the-serve-command--usage-issue-2) [self](#page)',
        '[gone](missing.md) ![gone image](img/none.png) [bad anchor](other.md#nowhere)',
        '[web](https://example.com/x.md) `[in code](missing-too.md)`',
        '```',
        '[in a fence](missing-three.md)',
        '```',
      ].join('\n'),
    );
    expect(brokenLinks(page).map((link) => [link.line, link.target])).toEqual([
      [3, 'missing.md'],
      [3, 'img/none.png'],
      [3, 'other.md#nowhere'],
    ]);
  });

  it('reports a named repository path that does not exist', () => {
    writeFileSync(join(dir, 'paths.md'), 'see `src/here.ts` and src/gone.ts, not `runs/x.json` or other/gone.ts\n');
    writeFileSync(join(dir, 'here.ts'), '');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'here.ts'), '');
    expect(missingRepoPaths(join(dir, 'paths.md'), dir, ['src']).map((path) => path.path)).toEqual(['src/gone.ts']);
  });

  it('slugs headings as GitHub does', () => {
    expect(headingSlug('runtime — transports and actor overhead (issue 2)')).toBe(
      'runtime--transports-and-actor-overhead-issue-2',
    );
    expect(headingSlug('Outcomes without bias')).toBe('outcomes-without-bias');
  });
});
