/**
 * Web navigation (WebArena, AgentGym's `agentenv-webarena`): tasks on a shop and a forum that the
 * env serves itself, each env instance with its own copy of the sites' state, played in Chromium
 * through WebArena's accessibility-tree observation and action grammar. See docs/envs/web.md.
 * This file stays light: the browser and the sites load on the first reset.
 */
import { EnvError, type EnvDefinition, type EnvSpec } from '../contract.ts';
import { webPrompt } from './prompt.ts';
import { WebEnv, type WebEnvOptions } from './env.ts';
import { WebOracle } from './oracle.ts';
import { webCategoryOf, webTasks } from './tasks/web-tasks.ts';

export const webSpec: EnvSpec = {
  id: 'web',
  description: 'Web navigation in Chromium on a bundled shop and forum (info, navigation, state-change tasks), as WebArena',
  // The last stage of AgentGym-RL's WebArena schedule [8, 12, 15].
  defaultHorizon: 15,
  // Getters: the task list (~0.2 s) is built on first use, not when the registry loads.
  splits: {
    get train() {
      return webTasks('train').length;
    },
    get test() {
      return webTasks('test').length;
    },
    get 'test-templates'() {
      return webTasks('test-templates').length;
    },
  },
  maxReward: 1,
};

/** A definition whose envs use `options`; the registered `webDefinition` uses the defaults. */
export function createWebDefinition(options: WebEnvOptions = {}): EnvDefinition {
  return {
    spec: webSpec,
    tasks: webTasks,
    make: () => new WebEnv(webSpec, options),
    categoryOf: webCategoryOf,
    prompt: webPrompt,
    oracle(env) {
      if (!(env instanceof WebEnv)) throw new EnvError('ENV_INTERNAL', 'the web oracle needs a local WebEnv made by webDefinition.make()');
      return new WebOracle(env);
    },
  };
}

export const webDefinition: EnvDefinition = createWebDefinition();

export { WebEnv, type WebEnvOptions, type WebEnvState } from './env.ts';
export { WebOracle } from './oracle.ts';
export { closeSharedSites, leaseSites, type SiteLease } from './shared-sites.ts';
export { webTasks, webTask, webCategoryOf, allWebTasks, evaluateWebTask, WEB_TASK_KINDS } from './tasks/index.ts';
export type { WebTask, WebTaskKind, WebEvaluator, WebPlanStep, WebVerdict } from './tasks/index.ts';
export { parseWebAction, formatWebAction, extractWebAction, WEB_ACTION_GRAMMAR, type WebAction } from './browser/grammar.ts';
export { formatWebObservation } from './browser/observation.ts';
