/**
 * Supervised fine-tuning (behaviour cloning) of the transformer policy on demonstrations
 * (`actorgym collect`, or AgentTraj files): the composition root of `actorgym sft`. The steps
 * live in actors/sft/ (sft-run.ts composes them); TensorFlow.js loads when `run()` is called.
 *
 * One code path with RL: the run configuration, tokenizer, model and checkpoint are training's
 * (learner/training-config.ts, learner/run-models.ts, learner/checkpoint/); demos become rows
 * through the policy's own context layout (learner/sft/demo-rows.ts); the loss runs through the
 * learner's update with the cross-entropy objective (learner/sft/sft-epoch.ts).
 */
import { Subject } from 'rxjs';
import { getEnv } from '../envs/index.ts';
import type { TrainingEvent } from '../streams/training-events.ts';
import { systemClock } from './clock.ts';
import { sftConfigOf, sftSettingsOf, type SftOptions, type SftSummary, type SftSystem } from './sft/sft-options.ts';
import { checkRunLimits } from './training/run-limits.ts';

export type { SftOptions, SftSummary, SftSystem } from './sft/sft-options.ts';

/**
 * Behaviour cloning on demonstrations, as a run: an epoch is a "step": metrics.jsonl gets one line
 * per epoch (train loss, validation loss, and test success every `evalEvery` epochs), the
 * checkpoint is written after every epoch, and `resume` continues at the next epoch exactly (the
 * shuffle is derived from seed and epoch). The checkpoint loads anywhere a training checkpoint
 * does (`eval --checkpoint`, `train --init`). Throws at once on bad settings.
 *
 * @example
 * const sft = createSftSystem({ env: 'babyai', demos: ['demos/babyai.jsonl'], epochs: 10, out: 'runs/sft' });
 * sft.events.subscribe((e) => e.type === 'learner.stepped' && console.log(e.metrics.valLoss));
 * const summary = await sft.run();
 */
export function createSftSystem(options: SftOptions): SftSystem {
  const clock = options.clock ?? systemClock;
  const events = new Subject<TrainingEvent>();
  const env = typeof options.env === 'string' ? getEnv(options.env) : options.env;
  const settings = sftSettingsOf(options);
  const freshConfig = sftConfigOf(env, options, settings);
  checkRunLimits(options);
  let stopReason: string | undefined;
  let started: Promise<SftSummary> | undefined;
  return {
    events: events.asObservable(),
    run: () => (started ??= import('./sft/sft-run.ts').then(({ sftRun }) => sftRun({ options, env, settings, freshConfig, clock, events, stopReason: () => stopReason }))),
    /** Stops at the next update; the last finished epoch's checkpoint is what remains. */
    stop: (reason = 'stopped by the caller') => {
      stopReason ??= reason;
    },
  };
}
