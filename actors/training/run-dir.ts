/**
 * The run directory:
 *
 *   DIR/config.json                     the run's configuration (and the backend it ran on)
 *   DIR/metrics.jsonl                   one JSON object per learner step, appended and flushed each step
 *   DIR/trajectories/step-000001.jsonl  one line per episode of the step (aborted ones too)
 *   DIR/checkpoint/                     the latest checkpoint (learner/checkpoint/)
 *   DIR/checkpoint.old/                 transiently, the previous one (learner/checkpoint/write.ts)
 *
 * A resumed run first cuts metrics.jsonl back to the checkpoint's step: lines written after the
 * checkpoint by the interrupted process are replayed, not duplicated. It continues in the run
 * directory its checkpoint came from, whether the crash left it at `checkpoint/` or only at
 * `checkpoint.old/`.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';
import { removeStaleCheckpointTemps } from '../../learner/checkpoint/stale.ts';

const CHECKPOINT = 'checkpoint';

export class RunDir {
  readonly root: string;
  readonly metricsFile: string;
  readonly checkpointDir: string;
  readonly trajectoriesDir: string;

  constructor(out: string) {
    this.root = path.resolve(out);
    this.metricsFile = path.join(this.root, 'metrics.jsonl');
    this.checkpointDir = path.join(this.root, CHECKPOINT);
    this.trajectoriesDir = path.join(this.root, 'trajectories');
  }

  /**
   * The run directory a checkpoint folder belongs to (`DIR/checkpoint` or `DIR/checkpoint.old`),
   * or undefined for a checkpoint that lives elsewhere.
   */
  static ofCheckpoint(checkpointDir: string): string | undefined {
    const name = path.basename(checkpointDir);
    return name === CHECKPOINT || name === `${CHECKPOINT}.old` ? path.dirname(path.resolve(checkpointDir)) : undefined;
  }

  /**
   * Creates the layout and removes the checkpoint temp folders of dead processes; on resume keeps
   * metrics of steps ≤ `resumeStep` only.
   */
  init(config: unknown, resumeStep: number): void {
    mkdirSync(this.trajectoriesDir, { recursive: true });
    removeStaleCheckpointTemps(this.checkpointDir);
    writeFileSync(path.join(this.root, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    const kept = existsSync(this.metricsFile) && resumeStep > 0
      ? readFileSync(this.metricsFile, 'utf8').split('\n').filter((line) => {
          if (line.trim() === '') return false;
          try {
            return (JSON.parse(line) as { step?: number }).step! <= resumeStep;
          } catch {
            return false; // a line cut short by a kill
          }
        })
      : [];
    writeFileSync(this.metricsFile, kept.map((line) => `${line}\n`).join(''));
  }

  /** Appends one line; appendFileSync returns after the write, so a kill loses no finished step. */
  appendMetrics(metrics: Readonly<Record<string, number | string>>): void {
    appendFileSync(this.metricsFile, `${JSON.stringify(metrics)}\n`);
  }

  writeTrajectories(step: number, outputs: readonly EpisodeOutput[]): string {
    const file = path.join(this.trajectoriesDir, `step-${String(step).padStart(6, '0')}.jsonl`);
    const lines = outputs.map((o) => JSON.stringify({
      episodeId: o.episodeId,
      taskId: o.taskId,
      slot: o.slot,
      attempt: o.attempt,
      outcome: o.outcome,
      reward: o.reward,
      turns: o.turns,
      maxTurns: o.maxTurns,
      policyVersion: o.policyVersion,
      firstObservation: o.firstObservation,
      steps: o.trajectory.map((t) => ({ action: t.action, observation: t.observation, reward: t.reward, invalidAction: t.invalidAction })),
      ...(o.abortReason ? { abortReason: o.abortReason, error: o.error } : {}),
    }));
    writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
    return file;
  }
}
