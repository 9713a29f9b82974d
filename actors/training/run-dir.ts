/**
 * The run directory:
 *
 *   DIR/config.json                     the run's configuration (and the backend it ran on)
 *   DIR/metrics.jsonl                   one JSON object per learner step, appended and flushed each step
 *   DIR/trajectories/step-000001.jsonl  one line per episode of the step (aborted ones too)
 *   DIR/checkpoint/                     the latest checkpoint (actors/checkpoint/)
 *
 * A resumed run first cuts metrics.jsonl back to the checkpoint's step: lines written after the
 * checkpoint by the interrupted process are replayed, not duplicated.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { EpisodeOutput } from '../../machines/episode.machine.ts';

export class RunDir {
  readonly root: string;
  readonly metricsFile: string;
  readonly checkpointDir: string;
  readonly trajectoriesDir: string;

  constructor(out: string) {
    this.root = path.resolve(out);
    this.metricsFile = path.join(this.root, 'metrics.jsonl');
    this.checkpointDir = path.join(this.root, 'checkpoint');
    this.trajectoriesDir = path.join(this.root, 'trajectories');
  }

  /** Creates the layout; on resume keeps metrics of steps ≤ `resumeStep` only. */
  init(config: unknown, resumeStep: number): void {
    mkdirSync(this.trajectoriesDir, { recursive: true });
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
