/**
 * Task categories of a split (`EnvDefinition.categoryOf`), counted and put in the order tables
 * show them: ordinal categories (`depth 2`, `3-hop`) in numeric order, named ones (BabyAI's level
 * families, SciWorld's task families) in the order the split first lists them, which is the
 * paper's.
 */
import type { EnvDefinition, Split } from './contract.ts';

/** One task category of a split and how many of its tasks fall in it. */
export interface CategoryCount {
  readonly name: string;
  readonly tasks: number;
}

const numeric = new Intl.Collator('en', { numeric: true });

/** Distinct names, in first-seen order unless every name carries a number. */
export function orderCategories(namesInSplitOrder: Iterable<string>): string[] {
  const names = [...new Set(namesInSplitOrder)];
  return names.every((name) => /\d/.test(name)) ? names.sort(numeric.compare) : names;
}

/** Tasks per category of `split`; empty when the env declares no categories. */
export function categoryCounts(definition: Pick<EnvDefinition, 'tasks' | 'categoryOf'>, split: Split): CategoryCount[] {
  const categoryOf = definition.categoryOf?.bind(definition);
  if (!categoryOf) return [];
  const counts = new Map<string, number>();
  for (const taskId of definition.tasks(split)) {
    const name = categoryOf(taskId);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return orderCategories(counts.keys()).map((name) => ({ name, tasks: counts.get(name) as number }));
}
