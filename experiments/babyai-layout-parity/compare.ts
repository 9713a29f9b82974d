/**
 * Layout parity with AgentGym's BabyAI server (issue 28): for each level and seed, the grid our
 * generator draws with numpy's stream against the grid minigrid draws at `reset(seed=seed)`,
 * run side by side. Prints a table of matches per level. See README.md for the setup.
 *
 *   MINIGRID_PYTHONPATH=STUBS:MINIGRID:GYMNASIUM npx tsx experiments/babyai-layout-parity/compare.ts [--seeds 200] [--first 0] [--levels A,B]
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { AGENTGYM_LEVELS } from '../../envs/babyai/agentgym-index.ts';
import { ourLayout, stableStringify } from './layout.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '200' }, first: { type: 'string', default: '0' }, levels: { type: 'string' } } });
const first = Number(values.first);
const count = Number(values.seeds);
const levels = values.levels ? values.levels.split(',') : [...new Set(AGENTGYM_LEVELS)];
const pythonPath = process.env.MINIGRID_PYTHONPATH;
if (!pythonPath) throw new Error('set MINIGRID_PYTHONPATH (see experiments/babyai-layout-parity/README.md)');

const script = new URL('./minigrid_layouts.py', import.meta.url).pathname;
console.log(`| level | seeds | same grid and mission | first difference |`);
console.log(`|---|---|---|---|`);
let total = 0;
let same = 0;
for (const level of levels) {
  const theirs = execFileSync('python3', [script, level, String(first), String(count)], { env: { ...process.env, PYTHONPATH: pythonPath }, encoding: 'utf8', maxBuffer: 1 << 28 })
    // minigrid prints its rejections ("Sampling rejected: ...") on stdout too.
    .split('\n').filter((line) => line.startsWith('{')).map((line) => stableStringify(JSON.parse(line)));
  let matches = 0;
  let firstDiff = '';
  theirs.forEach((line, i) => {
    if (stableStringify(ourLayout(level, first + i)) === line) matches++;
    else if (!firstDiff) firstDiff = `seed ${first + i}`;
  });
  total += theirs.length;
  same += matches;
  console.log(`| ${level} | ${theirs.length} | ${matches} | ${firstDiff || '-'} |`);
}
console.log(`\n${same}/${total} (level, seed) pairs give the same grid and mission.`);
