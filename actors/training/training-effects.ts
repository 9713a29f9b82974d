/**
 * The learner actor's four effects for a training run (actors/learner.actor.ts): collect a step's
 * rollouts, train on them (the run's model, run-model.ts), publish the new weights, write a
 * checkpoint. The training data lives in the buffer actor (actors/buffer/trajectory-buffer.ts),
 * nowhere else: `collect` hands the step to the step feeder (the local producer collects its
 * groups through the rollout system and offers them to the buffer) and waits until all its groups
 * are ready; `train` takes them out of the buffer. `publish` stages the new weights with the
 * producer (applied when its next step starts) and advances the buffer's learner version. The
 * producer's rollout system is exposed while it runs, so a stop can cancel it.
 */
import type { Subject, Subscription } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import { curriculumState } from '../../machines/curriculum.machine.ts';
import type { LearnerMetrics } from '../../machines/learner.machine.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import type { CurriculumActorRef } from '../curriculum.actor.ts';
import type { LearnerEffects } from '../learner.actor.ts';
import type { RolloutSystem } from '../rollout-system.ts';
import { LocalProducer } from '../buffer/local-producer.ts';
import { StepFeeder } from '../buffer/step-feeder.ts';
import { TrajectoryBuffer } from '../buffer/trajectory-buffer.ts';
import { rolloutStats, stalenessOfGroups, stepOfGroups } from './metrics.ts';
import type { RunDir } from './run-dir.ts';
import type { RunModel } from './run-model.ts';
import type { TrainingOptions } from './training-options.ts';
import type { Producer } from '../buffer/producer.ts';
import type { TrainingProducer } from '../worker/training-producer.ts';

export interface TrainingEffectsOptions {
  readonly env: EnvDefinition;
  readonly config: TrainingConfig;
  readonly model: RunModel;
  readonly curriculum: CurriculumActorRef;
  readonly runDir: RunDir | undefined;
  readonly events: Subject<TrainingEvent>;
  readonly clock: RunClock;
  /** Aborted when the run stops, so a step paused for its env servers stops waiting. */
  readonly halt: AbortSignal;
  readonly options: Pick<TrainingOptions, 'maxRetries' | 'maxLostRetries' | 'envTimeoutMs' | 'onCheckpointStage'>;
  /** Steps already trained and the learner's version (a resumed run's checkpoint). Default 0. */
  readonly fromStep?: number;
  readonly policyVersion?: number;
  /** Issue 37: collect through this producer (the learner server's) instead of a local one, and tell it each publish. */
  readonly remote?: TrainingProducer;
}

export class TrainingEffects implements LearnerEffects {
  readonly producer: Producer;
  readonly #local: LocalProducer | undefined;
  readonly buffer: TrajectoryBuffer;
  readonly feeder: StepFeeder;
  readonly #o: TrainingEffectsOptions;
  readonly #forwarding: Subscription;

  constructor(options: TrainingEffectsOptions) {
    this.#o = options;
    const { env, config, options: o, events, clock } = options;
    this.#local = options.remote ? undefined : new LocalProducer({
      env, policy: options.model.policy,
      collect: {
        seed: config.seed, tasksPerStep: config.tasksPerStep, groupSize: config.groupSize, concurrency: config.concurrency,
        ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
        ...(o.maxLostRetries !== undefined ? { maxLostRetries: o.maxLostRetries } : {}),
        ...(o.envTimeoutMs !== undefined ? { envTimeoutMs: o.envTimeoutMs } : {}),
        // A step whose slots were aborted waits for its env servers (training.paused) instead of training short.
        clock, events: { next: (e) => events.next(e) },
      },
    });
    this.producer = options.remote?.producer ?? this.#local!;
    const ahead = config.async?.maxStaleness ?? 0;
    const fromStep = options.fromStep ?? 0;
    this.buffer = new TrajectoryBuffer({
      capacity: config.tasksPerStep * (ahead + 1), groupsPerStep: config.tasksPerStep, maxStaleness: ahead,
      learnerVersion: options.policyVersion ?? 0, takenThrough: fromStep,
    });
    this.feeder = new StepFeeder({
      buffer: this.buffer, producer: this.producer, groupsPerStep: config.tasksPerStep, ahead, lastStep: config.steps,
      firstStep: fromStep + 1, horizon: () => options.curriculum.getSnapshot().context.horizon, signal: options.halt,
    });
    this.#forwarding = this.buffer.changes$.subscribe((snapshot) => events.next({ type: 'buffer.changed', t: clock.now(), ...snapshot }));
  }

  /** The producer's rollout system while it runs. */
  get rollout(): RolloutSystem | undefined {
    return this.#local?.rollout;
  }

  async collect({ step }: { readonly step: number }): Promise<LearnerMetrics> {
    const started = performance.now();
    this.feeder.want(step);
    const groups = await this.buffer.ready(step, this.#o.halt);
    const collected = stepOfGroups(step, groups[0]?.horizon ?? 0, groups, (performance.now() - started) / 1000);
    this.#o.runDir?.writeTrajectories(step, collected.episodes.map((e) => e.output));
    return rolloutStats(collected);
  }

  async train({ step, rollout: stats }: { readonly step: number; readonly rollout: LearnerMetrics }): Promise<LearnerMetrics> {
    const groups = await this.buffer.batch(step, this.#o.halt);
    const { episodes } = stepOfGroups(step, groups[0]?.horizon ?? 0, groups, 0);
    // Asynchronous training corrects the rows older weights sampled (learner/behaviour-correction.ts).
    const staleness = this.#o.config.async ? stalenessOfGroups(groups, this.buffer.learnerVersion) : undefined;
    // Running ahead: one turn of the event loop first. A learner step's awaits resolve as microtasks
    // (the backend's reads), so without it the step would run to its end before the producer, which
    // has just delivered this step's groups, gets to start the next step's collection.
    if ((this.#o.config.async?.maxStaleness ?? 0) > 0) await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    const metrics = await this.#o.model.train(episodes, step, staleness);
    return { ...stats, ...metrics, learnSeconds: (performance.now() - started) / 1000 };
  }

  async publish({ version }: { readonly version: number }): Promise<void> {
    const staged = this.#o.model.publish(version);
    if (this.#local) this.#local.stage(staged);
    else {
      // Nothing rolls out here: the learner's agent takes the version now; the workers get it
      // before the buffer moves on (so a synchronous step's assignments follow its version).
      staged.apply();
      await this.#o.remote?.publish(version);
    }
    this.buffer.advance(version);
  }

  /** Stops feeding the producer and frees weights it never applied. */
  dispose(): void {
    this.feeder.dispose();
    this.#forwarding.unsubscribe();
    this.#local?.dispose();
  }

  checkpoint({ step, policyVersion }: { readonly step: number; readonly policyVersion: number }): Promise<string> {
    return this.save(step, policyVersion);
  }

  /** Writes the run's checkpoint (nothing, and '', without a run directory); resolves with its path. */
  async save(step: number, policyVersion: number): Promise<string> {
    const { runDir, model, config, curriculum, options } = this.#o;
    if (!runDir) return '';
    const state = { step, policyVersion, curriculum: curriculumState(curriculum.getSnapshot().context), config, seed: config.seed };
    return model.save(runDir.checkpointDir, state, options.onCheckpointStage ? { onStage: options.onCheckpointStage } : {});
  }
}
