/**
 * Issue 35: the text table moved from cli/output.ts to charts/ so bench/ and experiments/ print it
 * without importing the command line; cli/output.ts re-exports the same function.
 */
import { describe, expect, it } from 'vitest';
import { table as cliTable } from '../../cli/output.ts';
import { table } from '../../charts/text-table.ts';

describe('table', () => {
  it('pads every column to its widest cell, rules the header, and trims line ends', () => {
    expect(table([['env', 'steps/s'], ['babyai', '41200'], ['textcraft', '9']])).toBe(
      ['env        steps/s', '---------  -------', 'babyai     41200', 'textcraft  9'].join('\n'),
    );
  });

  it('is empty without a header, and a header alone still gets its rule', () => {
    expect(table([])).toBe('');
    expect(table([['a', 'bb']])).toBe('a  bb\n-  --');
  });

  it('is the function the CLI prints with', () => {
    expect(cliTable).toBe(table);
  });
});
