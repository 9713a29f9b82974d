/** The experiment runner: a grid of training runs (schedule × seed), resumable, with a report. */
export { createExperimentRunner, type ExperimentEvent, type ExperimentRunner, type ExperimentRunOptions, type ExperimentSummary } from './runner.ts';
export { loadExperiment, parseExperiment, cellsOf, type Cell, type Experiment } from './spec.ts';
export { aggregate, type CurvePoint, type ScheduleAggregate, type Stat } from './aggregate.ts';
export type { CellResult } from './cell-files.ts';
