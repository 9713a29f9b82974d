/**
 * The runtime's overhead per step alone (bench/runtime.ts `measureOverhead`), printed as one JSON
 * line, for A/B comparisons of two checkouts in alternating processes:
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   for i in 1 2 3 4 5 6 7 8; do npx tsx /tmp/before/bench/overhead.ts; npx tsx bench/overhead.ts; done
 *
 * Wall µs (`overheadMicros`) is the figure of docs/benchmarks.md; CPU µs (`overheadCpuMicros`) is the
 * same difference in this process's CPU time, which holds up better when other jobs share the cores.
 *
 * Usage: see USAGE below.
 */
import { measureOverhead } from './runtime.ts';

const USAGE = 'npx tsx bench/overhead.ts [RUNS=5] [CONCURRENCY=64] [EPISODE_STEPS=50]';

const runs = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 64);
const length = Number(process.argv[4] ?? 50);
for (const [name, value] of Object.entries({ RUNS: runs, CONCURRENCY: concurrency, EPISODE_STEPS: length })) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a positive integer, got ${value}\nusage: ${USAGE}`);
    process.exit(1);
  }
}
const result = await measureOverhead(runs, concurrency, length);
console.log(
  JSON.stringify({
    bareMicros: result.bare,
    runtimeMicros: result.runtime,
    overheadMicros: result.runtime - result.bare,
    // CPU time per step: on a shared machine, wall time also counts waiting for a core.
    overheadCpuMicros: result.runtimeCpu - result.bareCpu,
  }),
);
