/** The human rendering of an evaluation's results, as `eval` prints them (results.md holds the same tables). */
import { passAtKTable, resultsStatus, resultsTable } from '../eval/results-md.ts';
import type { EvalResults } from '../eval/eval-results.ts';
import { table } from './output.ts';
import { printLlmUsage } from './summary.ts';

export function printEvalSummary(results: EvalResults, dir: string): void {
  console.log(`${results.env} ${results.split} split, agent ${results.agent}, ${results.tasks} tasks × n = ${results.n}, seed ${results.seed}, horizon ${results.horizon} (success in %)`);
  console.log(table(resultsTable(results)));
  if (results.n > 1) console.log(`\n${table(passAtKTable(results))}`);
  console.log(`\n${resultsStatus(results)}`);
  if (results.tokens) printLlmUsage(results.tokens);
  console.log(`results: ${dir}/results.md, trajectories: ${dir}/episodes.jsonl`);
}
