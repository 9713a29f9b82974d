/**
 * The command line that continues an interrupted run: the one the user typed, with `--out`,
 * `--resume` and `--init` replaced by `--resume DIR` (the run directory holds the weights and the
 * configuration), so every other flag (env, remote servers, backend, budget) carries over.
 */

/** Flags that name where a run starts or goes; a resumed run takes its directory instead. */
const REPLACED = ['--out', '--resume', '--init'];

/** POSIX-shell quoting of one argument, only where needed. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * `args` are the command's arguments after the program (process.argv.slice(2)). Under `npm start`
 * the command is written as npm runs it (`npm start -- …`).
 */
export function resumeCommand(args: readonly string[], runDir: string, npmScript = process.env.npm_lifecycle_event): string {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (REPLACED.includes(arg)) {
      i += 1;
      continue;
    }
    if (REPLACED.some((flag) => arg.startsWith(`${flag}=`))) continue;
    kept.push(arg);
  }
  const [command, ...rest] = kept;
  const tail = [...rest, '--resume', runDir].map(shellQuote).join(' ');
  if (npmScript === 'start' && command === 'start') return `npm start -- ${tail}`;
  return `npx actorgym ${command === undefined ? '' : `${shellQuote(command)} `}${tail}`;
}
