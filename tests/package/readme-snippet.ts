/** The README's embedding example, read from the README itself so the tarball test and the docs cannot drift. */
import { readFileSync } from 'node:fs';

/** The first ```ts block under the README heading that mentions "Embed". */
export function readmeEmbedSnippet(readmePath: string): string {
  const text = readFileSync(readmePath, 'utf8');
  const section = /^##[^\n]*Embed[^\n]*\n([\s\S]*?)(?=^## )/m.exec(text);
  if (!section) throw new Error(`${readmePath}: no "## ...Embed..." section`);
  const block = /```ts\n([\s\S]*?)```/.exec(section[1]!);
  if (!block) throw new Error(`${readmePath}: the Embed section has no \`\`\`ts code block`);
  return block[1]!;
}
