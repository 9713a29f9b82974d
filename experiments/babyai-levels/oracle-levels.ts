/**
 * The BabyAI oracle's solve rate per level over seeds 0..49 (docs/envs/babyai.md#levels): for
 * each level named (default: all 40 of AgentGym's), how many seeds the oracle wins within
 * TURNS agent turns, and which it loses. Not a test: the tests play 5 seeds of the slow levels.
 *
 *   npx tsx experiments/babyai-levels/oracle-levels.ts [LEVEL ...]   (env SEEDS=0-49, TURNS=60, GRIDS=ours|minigrid)
 *
 * GRIDS=minigrid plays `<level>/<seed>/minigrid`, the grids AgentGym's server builds.
 */
import { babyaiDefinition } from '../../envs/babyai/index.ts';
import { AGENTGYM_LEVELS } from '../../envs/babyai/agentgym-index.ts';

const [from, to] = (process.env['SEEDS'] ?? '0-49').split('-').map(Number) as [number, number];
const maxTurns = Number(process.env['TURNS'] ?? 60);
const levels = process.argv.length > 2 ? process.argv.slice(2) : AGENTGYM_LEVELS;
const suffix = process.env['GRIDS'] === 'minigrid' ? '/minigrid' : '';

for (const name of levels) {
  const env = babyaiDefinition.make();
  const oracle = babyaiDefinition.oracle?.(env) as { next(): Promise<string> };
  let wins = 0;
  const lost: number[] = [];
  const started = performance.now();
  for (let seed = from; seed <= to; seed++) {
    await env.reset({ taskId: `${name}/${seed}${suffix}` });
    let won = false;
    for (let t = 0; t < maxTurns; t++) {
      const r = await env.step(await oracle.next());
      if (r.terminated || r.truncated) {
        won = r.info.success === true;
        break;
      }
    }
    if (won) wins++;
    else lost.push(seed);
  }
  await env.close();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${name}: ${wins}/${to - from + 1} lost [${lost.join(',')}] ${seconds} s`);
}
