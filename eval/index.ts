/** The evaluation harness: Avg@n and Pass@k per task category, written to a resumable directory. */
export { runEvaluation, type RunEvaluationOptions, type EvalRun, type EvalStart, type EvalProgress } from './run-eval.ts';
export { passAtK, aggregate, type SampleResult, type Metrics, type Aggregate } from './pass-at-k.ts';
export type { EvalResults } from './eval-results.ts';
export type { EvalConfig } from './eval-config.ts';
export type { EvalEpisodeRecord } from './eval-record.ts';
export { EvalError, type EvalErrorCode } from './eval-error.ts';
export { EvalDir } from './eval-files.ts';
export { resultsMarkdown, resultsTable, passAtKTable, resultsStatus } from './results-md.ts';
