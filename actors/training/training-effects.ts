/**
 * The learner actor's four effects for a training run (actors/learner.actor.ts): collect a step's
 * rollouts through the rollout system, train on them (the run's model, run-model.ts), publish the
 * new weights to the agent, write a checkpoint. The collected step is held between `collect` and
 * `train`; the step's rollout system is exposed while it runs, so a stop can cancel it.
 */
import type { Subject } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import { curriculumState } from '../../machines/curriculum.machine.ts';
import type { LearnerMetrics } from '../../machines/learner.machine.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { CollectedStep } from '../../learner/collected-step.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import type { CurriculumActorRef } from '../curriculum.actor.ts';
import type { LearnerEffects } from '../learner.actor.ts';
import type { RolloutSystem } from '../rollout-system.ts';
import type { TrajectoryGroup } from '../../learner/trajectory-group.ts';
import { LocalProducer } from '../buffer/local-producer.ts';
import { rolloutStats, stepOfGroups } from './metrics.ts';
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
  /** Issue 37: collect through this producer (the learner server's) instead of a local one, and tell it each publish. */
  readonly remote?: TrainingProducer;
}
export class TrainingEffects implements LearnerEffects {
  readonly producer: Producer;
  readonly #local: LocalProducer | undefined;
  readonly #o: TrainingEffectsOptions;
  #pending: CollectedStep | undefined;

  constructor(options: TrainingEffectsOptions) {
    this.#o = options;
    const { env, config, options: o, events } = options;
    this.#local = options.remote ? undefined : new LocalProducer({
      env, policy: options.model.policy,
      collect: {
        seed: config.seed, tasksPerStep: config.tasksPerStep, groupSize: config.groupSize, concurrency: config.concurrency,
        ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
        ...(o.maxLostRetries !== undefined ? { maxLostRetries: o.maxLostRetries } : {}),
        ...(o.envTimeoutMs !== undefined ? { envTimeoutMs: o.envTimeoutMs } : {}),
        clock: options.clock, events: { next: (e) => events.next(e) },
      },
    });
    this.producer = options.remote?.producer ?? this.#local!;
  }

  /** The step's rollout system while it runs. */
  get rollout(): RolloutSystem | undefined {
    return this.#local?.rollout;
  }

  async collect({ step }: { readonly step: number }): Promise<LearnerMetrics> {
    const { config, curriculum } = this.#o;
    const horizon = curriculum.getSnapshot().context.horizon;
    const groups: TrajectoryGroup[] = [];
    const started = performance.now();
    await this.producer.produce({ step, horizon, groups: Array.from({ length: config.tasksPerStep }, (_, i) => i) }, (g) => groups.push(g), this.#o.halt);
    this.#pending = stepOfGroups(step, horizon, groups, (performance.now() - started) / 1000);
    this.#o.runDir?.writeTrajectories(step, this.#pending.episodes.map((e) => e.output));
    return rolloutStats(this.#pending);
  }

  async train({ step, rollout: stats }: { readonly step: number; readonly rollout: LearnerMetrics }): Promise<LearnerMetrics> {
    const collected = this.#pending;
    this.#pending = undefined;
    if (!collected) throw new Error(`no rollouts collected for step ${step}`);
    const started = performance.now();
    const metrics = await this.#o.model.train(collected.episodes, step);
    return { ...stats, ...metrics, learnSeconds: (performance.now() - started) / 1000 };
  }

  async publish({ version }: { readonly version: number }): Promise<void> {
    this.#o.model.publish(version);
    await this.#o.remote?.publish(version);
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
