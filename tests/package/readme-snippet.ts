/** The README's embedding examples, read from the README itself so the tarball test and the docs cannot drift. */
import { readFileSync } from 'node:fs';

/** Every ```ts block under the README heading that mentions "Embed", in order. */
export function readmeEmbedSnippets(readmePath: string): string[] {
  const text = readFileSync(readmePath, 'utf8');
  const section = /^##[^\n]*Embed[^\n]*\n([\s\S]*?)(?=^## )/m.exec(text);
  if (!section) throw new Error(`${readmePath}: no "## ...Embed..." section`);
  const blocks = [...section[1]!.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  if (blocks.length === 0) throw new Error(`${readmePath}: the Embed section has no \`\`\`ts code block`);
  return blocks;
}
