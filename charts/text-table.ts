/**
 * Rows as a plain aligned text table, for terminal output: the CLI's summaries and every
 * benchmark's results. In charts/, apart from cli/, so that bench/ and experiments/ print the same
 * tables without importing the command line's internals.
 *
 * @example
 * table([['env', 'steps/s'], ['babyai', '41200']]);
 * // env     steps/s
 * // ------  -------
 * // babyai  41200
 */

/** Renders rows as a plain aligned table (first row is the header). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const line = (row: readonly string[]) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
