/**
 * Issue 35: every export of the package's root entry carries a doc comment where editors show it
 * (on the declaration, not only in its file's header). Read with TypeScript's own checker, which is
 * what an editor's hover asks.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The root entry's exports whose declaration has no doc comment, as `name (file)`. */
function undocumentedExports(entry: string): { count: number; missing: string[] } {
  const program = ts.createProgram([entry], {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`cannot read ${entry}`);
  const exports = checker.getExportsOfModule(module);
  const missing = exports.flatMap((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const doc = ts.displayPartsToString(target.getDocumentationComment(checker)).trim();
    const file = target.declarations?.[0]?.getSourceFile().fileName ?? '?';
    return doc === '' ? [`${symbol.name} (${path.relative(ROOT, file)})`] : [];
  });
  return { count: exports.length, missing };
}

describe('the public API documents itself (issue 35)', () => {
  it('every export of index.ts has a doc comment on its declaration', () => {
    const { count, missing } = undocumentedExports(path.join(ROOT, 'index.ts'));
    expect(count).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
