/**
 * Step 4 of a training run: the learner actor, run to its end. After each step the curriculum
 * hears `LEARNER.STEPPED`, the metrics line is written and the stream reads step → decision →
 * horizon change; after the step that reaches `maxMinutes` the learner is stopped as done.
 */
import type { Subject } from 'rxjs';
import type { CurriculumActorRef } from '../curriculum.actor.ts';
import type { RunClock } from '../clock.ts';
import { createLearnerActor, type LearnerActorRef, type LearnerInput } from '../learner.actor.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import { decisionFields, orderMetrics } from './metrics.ts';
import type { RunDir } from './run-dir.ts';
import type { TrainingEffects } from './training-effects.ts';
import type { TrainingStop } from './training-stop.ts';

export type LearnerSnapshot = ReturnType<LearnerActorRef['getSnapshot']>;

export interface RunLearnerOptions {
  readonly effects: TrainingEffects;
  readonly input: LearnerInput;
  readonly curriculum: CurriculumActorRef;
  /** The curriculum's events of the step, held back until its `learner.stepped` is out. */
  readonly curriculumEvents: TrainingEvent[];
  readonly runDir: RunDir | undefined;
  readonly events: Subject<TrainingEvent>;
  readonly clock: RunClock;
  readonly stop: TrainingStop;
  /** Aborted with the learner's stop (collect.ts: a paused step stops waiting). */
  readonly halt: AbortController;
  readonly maxMinutes: number | undefined;
}

export interface LearnerRun {
  readonly final: LearnerSnapshot;
  readonly trainSeconds: number;
  /** The run ended on `maxMinutes` before its target step. */
  readonly budgetReached: boolean;
}

export async function runLearner(o: RunLearnerOptions): Promise<LearnerRun> {
  const { effects, curriculum, events, clock } = o;
  const learner = createLearnerActor(effects, o.input);
  const stopLearner = (reason: string): void => {
    o.halt.abort(new Error(reason));
    learner.send({ type: 'STOP', reason });
    effects.rollout?.stop(reason);
  };
  const trainStarted = performance.now();
  let budgetReached = false;
  learner.on('learner.stepped', (e) => {
    const metrics = orderMetrics(e.metrics);
    curriculum.send({ type: 'LEARNER.STEPPED', step: e.step, metrics });
    o.runDir?.appendMetrics({ ...metrics, ...decisionFields(curriculum.getSnapshot().context.lastDecision) });
    events.next({ type: 'learner.stepped', t: clock.now(), step: e.step, policyVersion: e.policyVersion, metrics });
    for (const event of o.curriculumEvents.splice(0)) events.next(event);
    const budget = o.maxMinutes;
    if (budget !== undefined && !budgetReached && e.step < o.input.targetSteps && performance.now() - trainStarted >= budget * 60_000) {
      budgetReached = true;
      stopLearner(`time budget of ${budget} min`);
    }
  });
  learner.on('checkpoint.saved', (e) => events.next({ type: 'checkpoint.saved', t: clock.now(), step: e.step, path: e.path }));
  const final = await new Promise<LearnerSnapshot>((resolve) => {
    learner.subscribe({ complete: () => resolve(learner.getSnapshot()), error: () => resolve(learner.getSnapshot()) });
    learner.start();
    o.stop.attachLearner(stopLearner);
    learner.send({ type: 'START' });
  });
  o.stop.detachLearner();
  return { final, trainSeconds: (performance.now() - trainStarted) / 1000, budgetReached };
}
