/**
 * The command line that continues an interrupted run: the one the user typed, with `--out`,
 * `--resume` and `--init` replaced by `--resume DIR` (the run directory holds the weights and the
 * configuration), so every other flag (env, remote servers, backend, budget) carries over; a
 * token or API key is written as the environment variable it may come from, never as its value.
 */

/** Flags that name where a run starts or goes; a resumed run takes its directory instead. */
const REPLACED = ['--out', '--resume', '--init'];

/**
 * Flags whose value is a secret: the printed command lands in terminals and collected logs, so it
 * names the variable the value can come from instead of the value (issue 40, finding 6).
 */
const SECRET: Readonly<Record<string, string>> = {
  '--token': '"$ACTORGYM_TOKEN"',
  '--worker-token': '"$ACTORGYM_TOKEN"',
  '--env-token': '"$ACTORGYM_TOKEN"',
  '--api-key': '"$OPENAI_API_KEY"',
};

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
    const secret = Object.keys(SECRET).find((flag) => arg === flag || arg.startsWith(`${flag}=`));
    if (secret !== undefined) {
      if (arg === secret) i += 1;
      kept.push(secret, SECRET[secret] as string);
      continue;
    }
    kept.push(arg);
  }
  const [command, ...rest] = kept;
  const quote = (arg: string) => (Object.values(SECRET).includes(arg) ? arg : shellQuote(arg));
  const tail = [...rest, '--resume', runDir].map(quote).join(' ');
  if (npmScript === 'start' && command === 'start') return `npm start -- ${tail}`;
  return `npx actorgym ${command === undefined ? '' : `${shellQuote(command)} `}${tail}`;
}
