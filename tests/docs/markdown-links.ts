/**
 * Finds the relative links of a markdown file and checks that each points to an existing file
 * (and, for `#anchor` links into markdown, to an existing heading), and the repository paths it
 * names, so the README and docs/ cannot drift from the tree. Test support for
 * tests/docs/links.test.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly reason: string;
}

/** `[text](target)` and `![alt](target)`, not inside code; the target up to a space or `)`. */
const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (duplicates numbered as GitHub does). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown, { keepInlineCode: true })) {
    const match = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!match?.[1]) continue;
    const slug = headingSlug(match[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The file's lines with fenced code blocks (and, unless kept, inline code spans) blanked out. */
function withoutCode(markdown: string, options: { keepInlineCode?: boolean } = {}): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    if (fenced) return '';
    return options.keepInlineCode ? line : line.replace(/`[^`]*`/g, '');
  });
}

const anchorCache = new Map<string, Set<string>>();

function anchorsOf(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (!anchors) {
    anchors = headingAnchors(readFileSync(path, 'utf8'));
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/** Every relative link of `file` that does not resolve; external and mail links are skipped. */
export function brokenLinks(file: string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  withoutCode(readFileSync(file, 'utf8')).forEach((text, index) => {
    for (const match of text.matchAll(INLINE_LINK)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const [rawPath = '', anchor] = target.split('#', 2);
      const path = rawPath === '' ? file : resolve(dirname(file), decodeURIComponent(rawPath));
      const report = (reason: string) => broken.push({ file, line: index + 1, target, reason });
      if (!existsSync(path)) {
        report('no such file');
        continue;
      }
      if (anchor && path.endsWith('.md') && statSync(path).isFile() && !anchorsOf(path).has(anchor)) {
        report(`no heading with anchor #${anchor}`);
      }
    }
  });
  return broken;
}

export interface MissingPath {
  readonly file: string;
  readonly line: number;
  readonly path: string;
}

/**
 * Repository paths a doc names in its text (`learner/update.ts`, `bench/runtime.ts`):
 * tokens that start with one of `folders` (top-level folders of the repository) and end in a
 * source or data extension (markdown and images are links, checked by `brokenLinks`), read as
 * relative to `root`. Returns those that do not exist, so moving a file the docs name fails.
 */
export function missingRepoPaths(file: string, root: string, folders: readonly string[]): MissingPath[] {
  const escaped = folders.map((folder) => folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pathToken = new RegExp(
    `(?<![\\w/.-])((?:${escaped})/[\\w./+-]*?\\.(?:json|jsonl|ts|mjs|js|py|sh|patch|wasm))(?![\\w])`,
    'g',
  );
  const missing: MissingPath[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      for (const match of text.matchAll(pathToken)) {
        const path = match[1] ?? '';
        if (!existsSync(resolve(root, path))) missing.push({ file, line: index + 1, path });
      }
    });
  return missing;
}
