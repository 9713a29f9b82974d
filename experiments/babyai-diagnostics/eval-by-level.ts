/**
 * A training diagnostic, not a benchmark: a checkpoint's test success per BabyAI level (the part
 * of the task id before the slash), next to the totals `actorgym eval` prints.
 *
 *   npx tsx experiments/babyai-diagnostics/eval-by-level.ts RUN_OR_CHECKPOINT [TEMPERATURE] [LEVEL]
 *
 * With LEVEL, also prints the actions of that level's episodes. `SPLIT=train` evaluates on the
 * train split (80 tasks a level instead of 5) instead of the test split.
 */
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { loadCheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import { resolveEnvDefinition } from '../../transport/resolve-env.ts';

const [dir, temperature, show] = process.argv.slice(2);
if (!dir) throw new Error('usage: npx tsx experiments/babyai-diagnostics/eval-by-level.ts RUN_OR_CHECKPOINT [TEMPERATURE]');
const agent = await loadCheckpointAgent(dir, { backend: 'auto', ...(temperature ? { temperature: Number(temperature) } : {}) });
const env = await resolveEnvDefinition({ env: agent.config.env });
const split = process.env.SPLIT === 'train' ? 'train' : 'test';
const system = createRolloutSystem({ env, agent: agent.policy, split, concurrency: 32, seed: 0 });
const byLevel = new Map<string, { solved: number; total: number; turns: number }>();
const tasks = new Map<string, string>();
const actions = new Map<string, string[]>();
system.events.subscribe((e) => {
  if (e.type === 'episode.started') tasks.set(e.episodeId, e.taskId);
  if (e.type === 'agent.acted' && tasks.get(e.episodeId)?.startsWith(`${show}/`)) actions.set(e.episodeId, [...(actions.get(e.episodeId) ?? []), e.action]);
  if (e.type !== 'episode.finished') return;
  if (actions.has(e.episodeId)) console.log(`${e.taskId} ${e.outcome}: ${actions.get(e.episodeId)!.join(' | ')}`);
  const level = e.taskId.split('/')[0]!;
  const row = byLevel.get(level) ?? { solved: 0, total: 0, turns: 0 };
  row.total++; row.turns += e.turns;
  if (e.outcome === 'success') row.solved++;
  byLevel.set(level, row);
});
const summary = await system.run();
agent.dispose();
console.log('| level | solved | mean turns |\n|---|---|---|');
for (const [level, r] of [...byLevel].sort()) console.log(`| ${level} | ${r.solved}/${r.total} | ${(r.turns / r.total).toFixed(1)} |`);
console.log(`${split} success ${summary.successRate.toFixed(3)} over ${summary.episodes} episodes (step ${agent.step})`);
