/**
 * Child process for checkpoint-kill.test.ts: a small training run that prints `AT <stage>` when
 * its WRITE-th checkpoint write reaches STAGE, then either holds there (`hold`) until the parent
 * kills it, or carries on writing (`go`) so the kill lands wherever the write has got to.
 *
 *   node --import tsx checkpoint-kill-child.ts RUN_DIR STEPS WRITE STAGE hold|go
 */
import { createTrainingSystem } from '../../actors/training-system.ts';
import type { CheckpointWriteStage } from '../../learner/checkpoint/write.ts';
import { KILL_RUN } from './checkpoint-kill-run.ts';

const [out, steps, write, stage, mode] = process.argv.slice(2) as [string, string, string, CheckpointWriteStage, 'hold' | 'go'];
let writes = 0;
await createTrainingSystem({
  ...KILL_RUN,
  steps: Number(steps),
  out,
  onCheckpointStage: async (reached) => {
    if (reached === 'temp-created') writes += 1;
    if (writes !== Number(write) || reached !== stage) return;
    process.stdout.write(`AT ${reached}\n`);
    // Keeps the event loop alive while the write waits for the kill.
    if (mode === 'hold') await new Promise(() => setInterval(() => {}, 60_000));
  },
}).run();
// Finished before the kill arrived (a slow parent): wait for it all the same.
process.stdout.write('DONE\n');
if (writes >= Number(write)) setInterval(() => {}, 60_000);
