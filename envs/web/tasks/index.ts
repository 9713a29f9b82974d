/** The web env's tasks and evaluators (see docs/envs/web.md, Tasks, and docs/envs/web-evaluators.md). */
export { evaluateWebTask, evaluateWebTaskJudged } from './evaluate.ts';
export { matchAnswer } from './answer-match.ts';
export {
  answerDate, answerId, answerName, answerNumber, canonicalId, extractDates, extractIds, extractNumbers, findNames, nameKey, normalizeAnswer, sameText, saysNotAchievable,
} from './normalise.ts';
export { ANSWER_FORMS, asking } from './answer-forms.ts';
export { VOCABULARIES, vocabulary, type Vocabulary } from './vocabularies.ts';
export { createChatJudge, judgeMessages, readJudgement, type AnswerJudge, type JudgeChat, type JudgeInput, type JudgeMessage } from './judge.ts';
export { matchUrl } from './url-match.ts';
export { checkDatabase } from './db-check.ts';
export { defaultShippingAddress, forumEffects, shopEffects, type ForumEffects, type ShopEffects } from './site-effects.ts';
export { allWebTasks, webCategoryOf, webTask, webTasks } from './web-tasks.ts';
export { WEB_TASK_KINDS } from './task.ts';
export type { AnswerEvaluator, DbEvaluator, ShippingAddress, UrlEvaluator, WebEvaluator, WebOutcome, WebPlanStep, WebTask, WebTaskKind, WebVerdict } from './task.ts';
