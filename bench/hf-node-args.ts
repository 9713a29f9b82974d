/**
 * Node arguments that run one of the HF bench's TypeScript files in a child process. Under
 * `npx tsx` the parent's execArgv already loads tsx; under `npm run bench` (bin/actorgym.js
 * registers tsx in-process) it does not, so the child gets `--import tsx` itself.
 */
export function nodeArgsFor(file: string): string[] {
  const hasTsx = process.execArgv.some((a) => a.includes('tsx'));
  return [...process.execArgv, ...(file.endsWith('.ts') && !hasTsx ? ['--import', 'tsx'] : []), file];
}
