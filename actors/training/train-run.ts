/**
 * A training run from its options to its summary, as a composition of steps: open the run
 * (open-run.ts), start the learner threads, build the agent (training-policy.ts), the curriculum
 * and the learner's effects (training-effects.ts), run the learner (run-learner.ts), finish
 * (finish-training.ts). The training system loads this module when it runs, so importing
 * actorgym loads no TensorFlow.js.
 */
import type { Subject } from 'rxjs';
import type { EnvDefinition } from '../../envs/contract.ts';
import { parseSchedule, type Schedule } from '../../machines/schedule.ts';
import type { TrainingEvent } from '../../streams/training-events.ts';
import type { DataParallelGrads } from '../../learner/data-parallel.ts';
import type { TrainingConfig } from '../../learner/training-config.ts';
import type { RunClock } from '../clock.ts';
import { createCurriculumActor } from '../curriculum.actor.ts';
import { finishTraining } from './finish-training.ts';
import { withLearnerThreads } from './learner-threads.ts';
import { openTrainingRun, type OpenedRun } from './open-run.ts';
import { runLearner } from './run-learner.ts';
import { TrainingEffects } from './training-effects.ts';
import type { RunConfigOptions, TrainingOptions, TrainingSummary } from './training-options.ts';
import { trainingPolicy } from './training-policy.ts';
import type { TrainingStop } from './training-stop.ts';

export interface TrainRunInput {
  readonly options: TrainingOptions;
  readonly env: EnvDefinition;
  readonly configOptions: RunConfigOptions;
  readonly freshConfig: TrainingConfig | undefined;
  readonly clock: RunClock;
  readonly events: Subject<TrainingEvent>;
  readonly stop: TrainingStop;
}

export async function trainRun(input: TrainRunInput): Promise<TrainingSummary> {
  const opened = await openTrainingRun(input);
  return withLearnerThreads(opened, input.options.learnerThreads, (parallel) => train(input, opened, parallel));
}

async function train(input: TrainRunInput, opened: OpenedRun, parallel: DataParallelGrads | undefined): Promise<TrainingSummary> {
  const { env, events, clock, options } = input;
  const { config, backend, models, runDir, resumed } = opened;
  const schedule = (parseSchedule(config.schedule) as { ok: true; value: Schedule }).value;
  const fromStep = resumed?.state.step ?? 0;
  const { agent, policy } = trainingPolicy(env, models, config, resumed);
  const curriculum = createCurriculumActor({ schedule, completedSteps: fromStep, ...(resumed ? { state: resumed.state.curriculum } : {}) });
  // Held back until the step's learner.stepped is out, so the stream reads step → decision → change.
  const curriculumEvents: TrainingEvent[] = [];
  curriculum.on('curriculum.decided', (decided) => curriculumEvents.push({ ...decided, t: clock.now() }));
  curriculum.on('horizon.changed', (change) => curriculumEvents.push({ ...change, t: clock.now() }));
  runDir?.init({ ...config, backend }, fromStep);
  events.next({
    type: 'training.started', t: clock.now(), env: env.spec.id, algo: config.algo, backend, learnerThreads: parallel ? 2 : 1, fromStep, targetSteps: config.steps,
    out: runDir?.root ?? '', parameters: models.model.parameterCount, vocabSize: models.tokenizer.vocabSize,
  });
  const halt = new AbortController();
  const effects = new TrainingEffects({ env, config, models, agent, policy, curriculum, runDir, parallel, events, clock, halt: halt.signal, options });
  const learned = await runLearner({
    effects, curriculum, curriculumEvents, runDir, events, clock, stop: input.stop, halt, maxMinutes: options.maxMinutes,
    input: { completedSteps: fromStep, targetSteps: config.steps, policyVersion: resumed?.state.policyVersion ?? 0, checkpointEvery: runDir ? config.checkpointEvery : 0 },
  });
  curriculum.stop();
  policy.clearRecords();
  agent.dispose();
  return finishTraining({
    env, config, backend, models, runDir, fromStep, learned, effects, events, clock, maxMinutes: options.maxMinutes, evaluationSignal: input.stop.evaluation.signal,
  });
}
