/** What the web env loads on its first reset: the site server, the browser layer, the evaluators. */
export { leaseSites } from './shared-sites.ts';
export { openWebSession } from './browser/web-session.ts';
export { parseWebAction } from './browser/grammar.ts';
export { formatWebObservation } from './browser/observation.ts';
export { evaluateWebTask, evaluateWebTaskJudged } from './tasks/evaluate.ts';
