/**
 * A small training run on a pool of env servers (bench/chaos-fleet.ts) while servers are
 * SIGKILLed and restarted: early in every learner step's rollout one server the pool is connected
 * to is killed (its episodes die mid-flight and are retried on the others), and at `outageAtStep`
 * every server is killed at once, so the step pauses (`training.paused`) until they are back. The
 * same training is run undisturbed, in-process, and the two are compared metric for metric.
 */
import { createTrainingSystem, type TrainingOptions } from '../actors/training-system.ts';
import { TIMING_FIELDS } from '../actors/training/metrics.ts';
import { poolEnvDefinition } from '../transport/remote/pool-definition.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import type { ServerFleet } from './chaos-fleet.ts';

export interface ChaosTrainingOptions {
  readonly fleet: ServerFleet;
  readonly training: Omit<TrainingOptions, 'env'>;
  /** The step whose rollout loses every server at once. */
  readonly outageAtStep: number;
  /** Episodes of a step that finish before its kill. Default 2. */
  readonly killAfter?: number;
}

export interface ChaosTrainingResult {
  readonly steps: number;
  readonly status: string;
  readonly kills: number;
  readonly abortedAttempts: number;
  readonly pauses: number;
  readonly resumes: number;
  /** Learner steps whose metrics (timing fields aside) equal the undisturbed run's. */
  readonly stepsEqual: number;
  readonly seconds: number;
  readonly undisturbedSeconds: number;
}

const withoutTiming = (metrics: Readonly<Record<string, number>>) =>
  JSON.stringify(Object.entries(metrics).filter(([key]) => !(TIMING_FIELDS as readonly string[]).includes(key)));

async function metricsOf(options: TrainingOptions, watch?: (event: TrainingEvent) => void): Promise<{ lines: string[]; status: string; steps: number; seconds: number }> {
  const started = performance.now();
  const training = createTrainingSystem(options);
  const lines: string[] = [];
  training.events.subscribe((event) => {
    if (event.type === 'learner.stepped') lines.push(withoutTiming(event.metrics));
    watch?.(event);
  });
  const summary = await training.run();
  return { lines, status: summary.status, steps: summary.steps, seconds: (performance.now() - started) / 1000 };
}

export async function chaosTraining(options: ChaosTrainingOptions): Promise<ChaosTrainingResult> {
  const { fleet, outageAtStep } = options;
  const killAfter = options.killAfter ?? 2;
  const undisturbed = await metricsOf({ ...options.training, env: 'babyai' });

  const env = await poolEnvDefinition(fleet.urls, 'babyai', { serverWaitMs: 500 });
  let kills = 0;
  let abortedAttempts = 0;
  let pauses = 0;
  let resumes = 0;
  const restarts: Promise<void>[] = [];
  const finishedInStep = new Map<number, number>();
  const live = () => fleet.up().filter((index) => env.stats()[index]?.state === 'live');
  const killAndRestart = (index: number) => {
    kills += 1;
    restarts.push(fleet.kill(index).then(() => fleet.restart(index)));
  };
  try {
    const disturbed = await metricsOf({ ...options.training, env }, (event) => {
      if (event.type === 'training.paused') {
        pauses += 1;
        // Every server is down: bring them back, and the step resumes.
        for (let index = 0; index < fleet.size; index++) restarts.push(fleet.kill(index).then(() => fleet.restart(index)));
      }
      if (event.type === 'training.resumed') resumes += 1;
      if (event.type !== 'episode.finished') return;
      if (event.outcome === 'aborted') abortedAttempts += 1;
      const step = Number(/^step-(\d+)-/.exec(event.episodeId)?.[1]);
      const count = (finishedInStep.get(step) ?? 0) + 1;
      finishedInStep.set(step, count);
      if (count !== killAfter) return;
      if (step === outageAtStep) {
        for (const index of fleet.up()) killAndRestartLater(index);
      } else {
        const candidates = live();
        if (candidates.length > 1) killAndRestart(candidates[step % candidates.length] as number);
      }
    });
    await Promise.all(restarts);
    return {
      steps: disturbed.steps,
      status: disturbed.status,
      kills,
      abortedAttempts,
      pauses,
      resumes,
      stepsEqual: disturbed.lines.filter((line, i) => line === undisturbed.lines[i]).length,
      seconds: disturbed.seconds,
      undisturbedSeconds: undisturbed.seconds,
    };
  } finally {
    await env.close();
  }

  /** The outage: killed now, restarted only once the learner has paused (see above). */
  function killAndRestartLater(index: number): void {
    kills += 1;
    restarts.push(fleet.kill(index));
  }
}
