/**
 * The runtime's overhead per step alone (bench/runtime.ts `measureOverhead`), printed as one JSON
 * line, for A/B comparisons of two checkouts in alternating processes:
 *
 *   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   for i in 1 2 3 4 5 6 7 8; do npx tsx /tmp/before/bench/overhead.ts; npx tsx bench/overhead.ts; done
 *
 * Usage: npx tsx bench/overhead.ts [RUNS=5] [CONCURRENCY=64]
 */
import { measureOverhead } from './runtime.ts';

const runs = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 64);
const result = await measureOverhead(runs, concurrency);
console.log(JSON.stringify({ bareMicros: result.bare, runtimeMicros: result.runtime, overheadMicros: result.runtime - result.bare }));
