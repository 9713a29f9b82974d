/**
 * CLI start-up: wall time and peak RSS of `actorgym --help` and `actorgym envs`, side by side for
 * the compiled package (dist/, what an installed package runs), the TypeScript checkout through
 * tsx (development), and bare `node -e 0` (the floor). Runs alternate between the three so a
 * shared machine's load falls on all of them alike; medians over the runs.
 *
 *   npx actorgym bench startup            (builds dist/ first when it is missing: npm run build)
 *   npx tsx bench/startup.ts [--runs 7]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { table } from '../charts/text-table.ts';
import { median } from './stats.ts';

interface Measure {
  readonly ms: number;
  readonly rssMb: number;
}

/** The repository (or package) root: the first folder upwards with a package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('bench startup: no package.json above bench/');
    dir = up;
  }
  return dir;
}

// Printed by the child at exit: its own peak RSS (kB), so no external `time` is needed.
const RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nmaxrss '+process.resourceUsage().maxRSS+'\\n'))`;

function measure(args: readonly string[]): Measure {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', RSS_HOOK, ...args], { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`bench startup: node ${args.join(' ')} exited ${child.status}: ${child.stderr.slice(-500)}`);
  const rss = /maxrss (\d+)/.exec(child.stderr);
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : Number.NaN };
}

export async function runStartupBench(runs = 7): Promise<void> {
  const root = packageRoot();
  const built = join(root, 'dist', 'bin', 'actorgym.js');
  const checkout = join(root, 'bin', 'actorgym.js');
  const hasSources = existsSync(join(root, 'cli', 'main.ts'));
  if (!existsSync(built)) {
    if (!hasSources) throw new Error(`bench startup: ${built} is missing`);
    console.error('bench startup: dist/ is missing; building it (npm run build)');
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('bench startup: npm run build failed');
  }
  const sides: { name: string; args: (command: string) => string[] }[] = [
    { name: 'compiled (dist/)', args: (command) => [built, command] },
    ...(hasSources ? [{ name: 'checkout (tsx)', args: (command: string) => [checkout, command] }] : []),
    { name: 'node -e 0', args: () => ['-e', '0'] },
  ];
  const rows: string[][] = [];
  for (const command of ['--help', 'envs']) {
    const results = sides.map(() => [] as Measure[]);
    for (let run = 0; run < runs; run++) sides.forEach((side, i) => results[i]!.push(measure(side.args(command))));
    sides.forEach((side, i) => {
      const ms = median(results[i]!.map((m) => m.ms));
      const rss = median(results[i]!.map((m) => m.rssMb));
      const floor = side.name === 'node -e 0';
      rows.push([floor ? '-' : command, side.name, ms.toFixed(0), Math.min(...results[i]!.map((m) => m.ms)).toFixed(0), rss.toFixed(0)]);
    });
  }
  console.log(`CLI start-up, median of ${runs} alternating runs`);
  console.log(table([['command', 'variant', 'median ms', 'min ms', 'peak RSS MB'], ...rows]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--runs');
  await runStartupBench(at > 0 ? Number(process.argv[at + 1]) : 7);
}
