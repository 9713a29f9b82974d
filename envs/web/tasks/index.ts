/** The web env's tasks and evaluators (see docs/envs/web.md, Tasks). */
export { evaluateWebTask } from './evaluate.ts';
export { answerNumber, matchAnswer, normalizeAnswer } from './answer-match.ts';
export { matchUrl } from './url-match.ts';
export { checkDatabase } from './db-check.ts';
export { allWebTasks, webCategoryOf, webTask, webTasks } from './web-tasks.ts';
export { WEB_TASK_KINDS } from './task.ts';
export type { AnswerEvaluator, DbEvaluator, UrlEvaluator, WebEvaluator, WebOutcome, WebPlanStep, WebTask, WebTaskKind, WebVerdict } from './task.ts';
