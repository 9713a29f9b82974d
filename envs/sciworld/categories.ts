/** SciWorld's task categories: the task family, named as AgentGym-RL's tables name them. */
import type { Family } from './task.ts';
import { familyOf } from './tasks.ts';

export const CATEGORY_NAMES: Readonly<Record<Family, string>> = {
  measure: 'Measure',
  conductivity: 'Test-Conductivity',
  find: 'Find',
  'chem-mix': 'Chem-Mix',
  lifespan: 'Lifespan',
};

/** From the task name in the id (`test-conductivity/12` → `Test-Conductivity`); builds no world. */
export function sciworldCategoryOf(taskId: string): string {
  return CATEGORY_NAMES[familyOf(taskId)];
}
