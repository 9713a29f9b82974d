/**
 * The composition root for training: the learner actor (machines/learner.machine.ts) with its
 * effects — each step's rollouts through the rollout system, the GRPO/PPO/REINFORCE++/RLOO update,
 * weight publishing to the agent, atomic checkpoints — plus the curriculum actor, which owns the
 * horizon (it hears `LEARNER.STEPPED` after each step; a change applies to the next step's
 * episodes), the run directory, and a final evaluation on the test split. The steps live in
 * actors/training/ (train-run.ts composes them); TensorFlow.js loads when `run()` is called.
 */
import { Subject } from 'rxjs';
import { getEnv } from '../envs/index.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { resolveConfig } from '../learner/training-config.ts';
import { systemClock } from './clock.ts';
import { checkRunLimits } from './training/run-limits.ts';
import { symmetriesOf } from './training/symmetries.ts';
import { configOptionsOf, type TrainingOptions, type TrainingSummary, type TrainingSystem } from './training/training-options.ts';
import { TrainingStop } from './training/training-stop.ts';

export type { TrainingOptions, TrainingSummary, TrainingSystem } from './training/training-options.ts';

/**
 * A training run as actors: rollouts, learner and curriculum (GRPO, PPO, REINFORCE++ or RLOO on
 * our transformer policy). Throws at once on a bad configuration of a fresh run (unknown
 * algorithm, bad schedule, …); a resumed run's configuration comes from its checkpoint, so
 * `run()` rejects on it instead. Subscribe to `events` before `run()` to see every event.
 *
 * @example
 * const training = createTrainingSystem({ env: 'babyai', algo: 'grpo', schedule: 'scaling:[6,13,20]@40', steps: 120, out: 'runs/a' });
 * training.events.pipe(filter((e) => e.type === 'learner.stepped')).subscribe((e) => console.log(e.metrics));
 * const summary = await training.run(); // { steps, testSuccessRate, … }
 */
export function createTrainingSystem(options: TrainingOptions): TrainingSystem {
  const clock = options.clock ?? systemClock;
  const events = new Subject<TrainingEvent>();
  const env = typeof options.env === 'string' ? getEnv(options.env) : options.env;
  const configOptions = configOptionsOf(options);
  // A fresh run's configuration is checked here, so a bad option fails before a dashboard or a
  // run directory is started; a resumed run's needs the checkpoint, read in run().
  const freshConfig = options.resume === undefined ? resolveConfig(env.spec.id, configOptions) : undefined;
  checkRunLimits(options);
  if (freshConfig?.relabel === true) symmetriesOf(env);
  if (options.init !== undefined && options.resume !== undefined) throw new Error('give --init (a new run from weights) or --resume (continue a run), not both');
  const stop = new TrainingStop();
  let started: Promise<TrainingSummary> | undefined;
  return {
    events: events.asObservable(),
    run: () => (started ??= import('./training/train-run.ts').then(({ trainRun }) => trainRun({ options, env, configOptions, freshConfig, clock, events, stop }))),
    stop: (reason = 'stopped by the caller') => stop.request(reason),
  };
}
