/**
 * Chaos (issue 24): BabyAI rollouts and a training run on a pool of three `actorgym serve`
 * processes while servers are SIGKILLed and restarted on their ports, at least 100 kills in all.
 * Prints, per run, the slots, kills, attempts, the aborted share, whether every slot settled
 * exactly once, and the success rate beside an undisturbed in-process run with the same seed;
 * for training, whether it completed, paused and resumed, and matched the undisturbed run.
 *
 *   npx actorgym bench chaos
 *   npx tsx bench/chaos.ts [ROLLOUTS=3] [EPISODES=2400] [KILL_EVERY=70]
 */
import { createRolloutSystem } from '../actors/rollout-system.ts';
import { table } from '../charts/text-table.ts';
import { getEnv } from '../envs/index.ts';
import { ServerFleet } from './chaos-fleet.ts';
import { chaosRollout } from './chaos-rollout.ts';
import { chaosTraining } from './chaos-training.ts';

const SERVERS = 3;
const CONCURRENCY = 32;
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

export async function runChaosBench(rollouts = 3, episodes = 2400, killEvery = 70): Promise<void> {
  const fleet = await ServerFleet.start(SERVERS);
  const rows: string[][] = [];
  let totalKills = 0;
  try {
    for (let run = 0; run < rollouts; run++) {
      const seed = 100 + run;
      const started = performance.now();
      const maxKills = Math.floor(episodes / killEvery) - 1;
      const chaos = await chaosRollout({ fleet, episodes, concurrency: CONCURRENCY, seed, killEvery, maxKills });
      const seconds = (performance.now() - started) / 1000;
      const undisturbed = await createRolloutSystem({ env: getEnv('babyai'), agent: 'random', split: 'train', episodes, concurrency: CONCURRENCY, seed }).run();
      const s = chaos.summary;
      const once = chaos.duplicated === 0 && chaos.unscored === 0 && chaos.started === chaos.finished && chaos.started === s.attempts && s.episodes === episodes;
      const se = Math.sqrt((undisturbed.successRate * (1 - undisturbed.successRate)) / episodes);
      const sameResults = JSON.stringify(s.results.map((r) => [r.slot, r.outcome, r.reward])) === JSON.stringify(undisturbed.results.map((r) => [r.slot, r.outcome, r.reward]));
      totalKills += chaos.kills;
      rows.push([
        `rollout ${run + 1} (seed ${seed})`, String(episodes), String(chaos.kills), String(s.attempts), String(s.abortedAttempts), pct(s.abortedShare),
        once ? 'yes' : 'NO', pct(s.successRate), pct(undisturbed.successRate), `±${pct(se)}`, sameResults ? 'yes' : 'no',
        String(chaos.placedAfterRestart), seconds.toFixed(0),
      ]);
    }
    const training = await chaosTraining({
      fleet,
      outageAtStep: 10,
      training: {
        backend: 'wasm', learnerThreads: 1, steps: 24, tasksPerStep: 8, groupSize: 4, schedule: 'fixed:8', seed: 7, corpusTasks: 16,
        evalEpisodes: 0, epochs: 1, minibatch: 32, model: { dModel: 32, nLayers: 1, nHeads: 2, dFF: 64, maxContext: 128 },
      },
    });
    totalKills += training.kills;
    console.log(`${SERVERS} \`actorgym serve babyai\` processes, random agent, ${CONCURRENCY} episodes at once; a kill is SIGKILL, then a restart on the same port\n`);
    console.log(
      table([
        ['run', 'slots', 'kills', 'attempts', 'aborted attempts', 'aborted share', 'every slot once', 'success', 'undisturbed', '1 s.e.', 'same per-slot results', 'placed on restarted servers', 'seconds'],
        ...rows,
      ]),
    );
    console.log('');
    console.log(
      table([
        ['training (24 steps × 32 slots, one step loses every server)', 'kills', 'aborted attempts', 'paused / resumed', 'completed', 'steps equal to undisturbed', 'seconds (undisturbed)'],
        [
          'GRPO, tiny transformer, BabyAI', String(training.kills), String(training.abortedAttempts), `${training.pauses} / ${training.resumes}`,
          `${training.status}, ${training.steps} steps`, `${training.stepsEqual} of ${training.steps}`, `${training.seconds.toFixed(0)} (${training.undisturbedSeconds.toFixed(0)})`,
        ],
      ]),
    );
    console.log(`\nkills in all: ${totalKills}`);
  } finally {
    await fleet.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [rollouts, episodes, killEvery] = [process.argv[2] ?? '3', process.argv[3] ?? '2400', process.argv[4] ?? '70'].map(Number) as [number, number, number];
  await runChaosBench(rollouts, episodes, killEvery);
}
