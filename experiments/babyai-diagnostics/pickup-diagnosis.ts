/**
 * A training diagnostic, not a benchmark: how a checkpoint fails BabyAI's pickup levels (Pickup,
 * PickupLoc, UnblockPickup) on the train split, 80 tasks each. For every failed episode it reads
 * the trajectory: did the agent ever pick something up, was its first pickup the wrong object
 * (it was still carrying it and the episode did not end there), and did it drop it again. For
 * every turn of every episode at which an object of the goal's description could be picked up, it
 * counts what the agent chose instead: that pickup, going to that object, or something else.
 *
 *   npx tsx experiments/babyai-diagnostics/pickup-diagnosis.ts RUN_OR_CHECKPOINT
 */
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { loadCheckpointAgent } from '../../learner/checkpoint/checkpoint-agent.ts';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { table } from '../../charts/text-table.ts';
import { getEnv } from '../../envs/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npx tsx experiments/babyai-diagnostics/pickup-diagnosis.ts RUN_OR_CHECKPOINT');
const LEVELS = ['Pickup', 'PickupLoc', 'UnblockPickup'];

interface Row {
  episodes: number;
  solved: number;
  neverPicked: number;
  wrongFirst: number;
  wrongNeverDropped: number;
  pickups: number;
  drops: number;
  /** Turns at which `pickup <goal object>` was available, and what was chosen at them. */
  goalTurns: number;
  pickedGoal: number;
  wentToGoal: number;
}

/** The goal object's words ("pick up the red ball on your right" → red, ball); colour optional. */
function goalOf(firstObservation: string): { color?: string; type: string } | undefined {
  const m = /Your goal: pick up (?:the|a) (?:(\w+) )?(ball|box|key)\b/.exec(firstObservation);
  if (!m) return undefined;
  return m[1] ? { color: m[1], type: m[2] as string } : { type: m[2] as string };
}

/** `pickup grey ball 1` names the goal object when its type (and colour, if given) match. */
function namesGoal(action: string, verb: string, goal: { color?: string; type: string }): boolean {
  if (!action.startsWith(verb)) return false;
  const [color, type] = action.slice(verb.length).split(' ');
  return type === goal.type && (goal.color === undefined || color === goal.color);
}

const availableIn = (observation: string): string[] => {
  const list = /Available actions: (\[.*\])/.exec(observation)?.[1];
  return list ? (JSON.parse(list) as string[]) : [];
};

const agent = await loadCheckpointAgent(dir, { backend: 'auto' });
const babyai = getEnv('babyai');
const tasks = babyai.tasks('train').filter((t) => LEVELS.includes(t.split('/')[0] as string));
const rows = new Map<string, Row>(LEVELS.map((l) => [l, { episodes: 0, solved: 0, neverPicked: 0, wrongFirst: 0, wrongNeverDropped: 0, pickups: 0, drops: 0, goalTurns: 0, pickedGoal: 0, wentToGoal: 0 }]));

function record(output: EpisodeOutput): void {
  const row = rows.get(output.taskId.split('/')[0] as string) as Row;
  row.episodes += 1;
  const goal = goalOf(output.firstObservation);
  if (goal) {
    output.trajectory.forEach((turn, i) => {
      const before = i === 0 ? output.firstObservation : output.trajectory[i - 1]!.observation;
      if (!availableIn(before).some((a) => namesGoal(a, 'pickup ', goal))) return;
      row.goalTurns += 1;
      if (namesGoal(turn.action, 'pickup ', goal)) row.pickedGoal += 1;
      else if (namesGoal(turn.action, 'go to ', goal)) row.wentToGoal += 1;
    });
  }
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
const share = (n: number, d: number): string => `${n} (${(100 * n / Math.max(1, d)).toFixed(0)} %)`;
console.log('\nTurns at which the goal object could be picked up (all episodes), and the choice made:\n');
console.log(
  table([
    ['level', 'turns', 'pickup <goal>', 'go to <goal>', 'anything else'],
    ...[...rows].map(([level, r]) => [level, String(r.goalTurns), share(r.pickedGoal, r.goalTurns), share(r.wentToGoal, r.goalTurns), share(r.goalTurns - r.pickedGoal - r.wentToGoal, r.goalTurns)]),
  ]),
);
