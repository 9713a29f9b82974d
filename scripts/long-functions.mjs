#!/usr/bin/env node
/**
 * Lists the functions (declarations, arrow functions, function expressions, methods,
 * constructors) over a line limit in the given folders, longest first: the check behind "no
 * function over about 80 lines in the systems and servers" (docs/architecture.md).
 *
 *   node scripts/long-functions.mjs [--max 80] actors servers dashboard/server eval demos learner experiment-runner
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ts = createRequire(import.meta.url)('typescript');
const args = process.argv.slice(2);
const maxAt = args.indexOf('--max');
const max = maxAt >= 0 ? Number(args.splice(maxAt, 2)[1]) : 80;
if (!(max > 0) || args.length === 0) {
  console.error('usage: node scripts/long-functions.mjs [--max N] FOLDER…');
  process.exit(2);
}

const files = [];
const walk = (p) => {
  if (statSync(p).isDirectory()) for (const entry of readdirSync(p)) walk(path.join(p, entry));
  else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
};
for (const folder of args) walk(folder);

const long = [];
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node, name) => {
    const isFunction = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node)
      || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node);
    if (isFunction) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max) long.push({ lines: last - first + 1, where: `${file}:${first + 1}`, name: node.name?.getText() ?? name ?? '(anonymous)' });
    }
    // An arrow or function expression takes the name of what it is assigned to.
    const named = ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node) ? node.name.getText() : name;
    ts.forEachChild(node, (child) => visit(child, named));
  };
  visit(source, undefined);
}
long.sort((a, b) => b.lines - a.lines);
for (const f of long) console.log(`${f.lines}\t${f.where}\t${f.name}`);
console.log(`${long.length} function(s) over ${max} lines in ${files.length} files`);
