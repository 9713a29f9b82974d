/**
 * A training diagnostic, not a benchmark: how a checkpoint fails BabyAI's pickup levels (Pickup,
 * PickupLoc, UnblockPickup) on the train split, 80 tasks each. For every failed episode it reads
 * the trajectory: did the agent ever pick something up, was its first pickup the wrong object
 * (it was still carrying it and the episode did not end there), and did it drop it again.
 *
 *   npx tsx bench/pickup-diagnosis.ts RUN_OR_CHECKPOINT
 */
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { loadCheckpointAgent } from '../actors/training/checkpoint-agent.ts';
import type { EpisodeOutput } from '../machines/episode.machine.ts';
import { table } from '../cli/output.ts';
import { getEnv } from '../envs/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npx tsx bench/pickup-diagnosis.ts RUN_OR_CHECKPOINT');
const LEVELS = ['Pickup', 'PickupLoc', 'UnblockPickup'];

interface Row {
  episodes: number;
  solved: number;
  neverPicked: number;
  wrongFirst: number;
  wrongNeverDropped: number;
  pickups: number;
  drops: number;
}

const agent = await loadCheckpointAgent(dir, { backend: 'auto' });
const babyai = getEnv('babyai');
const tasks = babyai.tasks('train').filter((t) => LEVELS.includes(t.split('/')[0] as string));
const rows = new Map<string, Row>(LEVELS.map((l) => [l, { episodes: 0, solved: 0, neverPicked: 0, wrongFirst: 0, wrongNeverDropped: 0, pickups: 0, drops: 0 }]));

function record(output: EpisodeOutput): void {
  const row = rows.get(output.taskId.split('/')[0] as string) as Row;
  row.episodes += 1;
  if (output.outcome === 'success') {
    row.solved += 1;
    return;
  }
  const actions = output.trajectory.map((t) => t.action);
  const first = actions.findIndex((a) => a.startsWith('pickup'));
  row.pickups += actions.filter((a) => a.startsWith('pickup')).length;
  row.drops += actions.filter((a) => a === 'drop').length;
  if (first < 0) {
    row.neverPicked += 1;
    return;
  }
  // A failed episode whose first pickup left the agent carrying something picked the wrong object.
  if (!/You are carrying a /.test(output.trajectory[first]?.observation ?? '')) return;
  row.wrongFirst += 1;
  if (!actions.slice(first + 1).includes('drop')) row.wrongNeverDropped += 1;
}

await createRolloutSystem({ env: { ...babyai, tasks: () => tasks }, agent: agent.policy, split: 'train', concurrency: 32, seed: 0, onEpisode: record }).run();
agent.dispose();
console.log(`${dir} (step ${agent.step}), train split, the run's evaluation temperature\n`);
console.log(
  table([
    ['level', 'solved', 'failed', 'never picked up', 'first pickup wrong', '… and never dropped', 'pickups / failed ep.', 'drops / failed ep.'],
    ...[...rows].map(([level, r]) => {
      const failed = r.episodes - r.solved;
      return [level, `${r.solved}/${r.episodes}`, String(failed), String(r.neverPicked), String(r.wrongFirst), String(r.wrongNeverDropped), (r.pickups / Math.max(1, failed)).toFixed(1), (r.drops / Math.max(1, failed)).toFixed(1)];
    }),
  ]),
);
