/**
 * CLI start-up: wall time and peak RSS of `actorgym --help` and `actorgym envs`, side by side for
 * the compiled package (dist/, what an installed package runs), the TypeScript checkout through
 * tsx (development), and bare `node -e 0` (the floor). Runs alternate between the three so a
 * shared machine's load falls on all of them alike; medians over the runs.
 * Then an app's `import('actorgym')` and each sub-path, from the compiled package (the package
 * resolves its own name through its `exports`), and whether that import loaded TensorFlow.js.
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

function measure(args: readonly string[], cwd?: string): Measure {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', RSS_HOOK, ...args], { encoding: 'utf8', ...(cwd === undefined ? {} : { cwd }) });
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
  console.log(`\nAn app's import of the compiled package, median of ${runs} alternating runs (issue 35)`);
  console.log(table([['import', 'median ms', 'min ms', 'peak RSS MB', 'loads TF.js'], ...importRows(root, runs)]));
}

const ENTRY_POINTS = ['actorgym', 'actorgym/envs', 'actorgym/machines', 'actorgym/streams', 'actorgym/transport', 'actorgym/actors'];

/** `node -e "import('<entry>')"` from the package root, alternating over the entry points. */
function importRows(root: string, runs: number): string[][] {
  // tfjs-core keeps its engine on the global object from the moment it is loaded.
  const script = (entry: string) =>
    `await import('${entry}'); process.stderr.write('\\ntfjs ' + ('_tfengine' in globalThis) + '\\n');`;
  const results = ENTRY_POINTS.map(() => [] as Measure[]);
  const loadsTf = ENTRY_POINTS.map(() => false);
  for (let run = 0; run < runs; run++) {
    ENTRY_POINTS.forEach((entry, i) => {
      if (run === 0) {
        const child = spawnSync(process.execPath, ['--input-type=module', '-e', script(entry)], { cwd: root, encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`bench startup: import('${entry}') exited ${child.status}: ${child.stderr.slice(-500)}`);
        loadsTf[i] = /tfjs true/.test(child.stderr);
      }
      results[i]!.push(measure(['--input-type=module', '-e', `await import('${entry}')`], root));
    });
  }
  return ENTRY_POINTS.map((entry, i) => [
    `import('${entry}')`,
    median(results[i]!.map((m) => m.ms)).toFixed(0),
    Math.min(...results[i]!.map((m) => m.ms)).toFixed(0),
    median(results[i]!.map((m) => m.rssMb)).toFixed(0),
    loadsTf[i] ? 'yes' : 'no',
  ]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--runs');
  await runStartupBench(at > 0 ? Number(process.argv[at + 1]) : 7);
}
