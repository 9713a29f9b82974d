/**
 * The BabyAI oracle's solve rate per level over seeds 0..49 (docs/envs/babyai.md#levels): for
 * each level named (default: all 40 of AgentGym's), how many seeds the oracle wins within
 * TURNS agent turns, and which it loses. Not a test: the tests play 5 seeds of the slow levels.
 *
 *   npx tsx experiments/babyai-levels/oracle-levels.ts [LEVEL ...]   (env SEEDS=0-49, TURNS=60, GRIDS=ours|minigrid)
 *
 * GRIDS=minigrid plays `<level>/<seed>/minigrid`, the grids AgentGym's server builds.
 */
import { AGENTGYM_LEVELS } from '../../envs/babyai/agentgym-index.ts';
import { oracleWins } from './oracle-wins.ts';

const [from, to] = (process.env['SEEDS'] ?? '0-49').split('-').map(Number) as [number, number];
const maxTurns = Number(process.env['TURNS'] ?? 60);
const levels = process.argv.length > 2 ? process.argv.slice(2) : AGENTGYM_LEVELS;
const suffix = process.env['GRIDS'] === 'minigrid' ? '/minigrid' as const : '' as const;

for (const name of levels) {
  const started = performance.now();
  const { wins, lost } = await oracleWins(name, maxTurns, to - from + 1, { first: from, suffix });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const seeds = lost.map((id) => id.split('/')[1]);
  console.log(`${name}: ${wins}/${to - from + 1} lost [${seeds.join(',')}] ${seconds} s`);
}
