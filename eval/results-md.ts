/**
 * The results as tables in the layout of AgentGym-RL's: one row per agent and metric, columns the
 * task categories then Overall, success in percent with two decimals. `resultsTable` and
 * `passAtKTable` give the cells, so the CLI can print the same tables as plain text.
 */
import type { Metrics } from './pass-at-k.ts';
import type { EvalResults } from './eval-results.ts';

const pct = (x: number | null | undefined) => (x === undefined || x === null ? '–' : (100 * x).toFixed(2));
const score = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(2));

function columns(results: EvalResults): [string, Metrics | EvalResults][] {
  return [...Object.entries(results.categories), ['Overall', results]];
}

/** Header then rows: Avg@n, Pass@n, and Score when the env reports one. */
export function resultsTable(results: EvalResults): string[][] {
  const cols = columns(results);
  const n = results.n;
  const rows = [
    [results.agent, `Avg@${n}`, ...cols.map(([, m]) => pct(m.avgAtN))],
    [results.agent, `Pass@${n}`, ...cols.map(([, m]) => pct(m.passAtK[String(n)]))],
  ];
  if (results.meanScore !== undefined) rows.push([results.agent, 'Score', ...cols.map(([, m]) => score(m.meanScore))]);
  return [['Agent', 'Metric', ...cols.map(([name]) => name)], ...rows];
}

/** Header then one row per k = 1..n. */
export function passAtKTable(results: EvalResults): string[][] {
  const cols = columns(results);
  const rows = Array.from({ length: results.n }, (_, i) => [`Pass@${i + 1}`, ...cols.map(([, m]) => pct(m.passAtK[String(i + 1)]))]);
  return [['k', ...cols.map(([name]) => name)], ...rows];
}

function markdownTable(cells: readonly (readonly string[])[], textColumns: number): string {
  const [header, ...body] = cells;
  if (!header) return '';
  const line = (row: readonly string[]) => `| ${row.join(' | ')} |`;
  const rule = header.map((_, i) => (i < textColumns ? '---' : '---:'));
  return [line(header), line(rule), ...body.map(line)].join('\n');
}

/** One line: how complete the evaluation is and what it cost. */
export function resultsStatus(results: EvalResults): string {
  const { outcomes } = results;
  const done = results.complete
    ? 'complete'
    : `INCOMPLETE: ${results.missing} of ${results.tasks * results.n} (task, sample) pairs have no result (${missingWhy(results)}); re-run the same command to finish`;
  const tokens = results.tokens ? ` · ${results.tokens.promptTokens} prompt + ${results.tokens.completionTokens} completion tokens in ${results.tokens.calls} calls` : '';
  const exhausted = Object.entries(results.exhausted ?? {}).map(([code, count]) => `${count} ${code}`).join(', ');
  const truncated = exhausted === '' ? `${outcomes.truncated}` : `${outcomes.truncated} (${exhausted})`;
  const retried = (results.abortedAttempts ?? 0) > 0 ? ` · ${results.abortedAttempts} attempt(s) aborted by infrastructure` : '';
  return `${done} · success ${outcomes.success}, failure ${outcomes.failure}, truncated ${truncated}${retried} · ${results.wallSeconds.toFixed(1)} s${tokens}`;
}

/** Why pairs are missing, in words: aborted by infrastructure, cancelled, not run yet. */
export function missingWhy(results: EvalResults): string {
  const { aborted, cancelled = 0 } = results.outcomes;
  const notRun = results.missing - aborted - cancelled;
  return [`${aborted} aborted by infrastructure`, ...(cancelled > 0 ? [`${cancelled} cancelled`] : []), ...(notRun > 0 ? [`${notRun} not run yet`] : [])].join(', ');
}

export function resultsMarkdown(results: EvalResults): string {
  return [
    `# ${results.env} · ${results.split} · ${results.agent}`,
    '',
    `${results.tasks} tasks × n = ${results.n} samples · seed ${results.seed} · horizon ${results.horizon}. ` +
      'Success in %: Avg@n is the mean over the n samples of every task, Pass@k the unbiased estimator of Chen et al. (2021).' +
      (results.meanScore !== undefined ? ' Score is the env\'s own 0–100 score, averaged.' : ''),
    '',
    markdownTable(resultsTable(results), 2),
    '',
    '## Pass@k',
    '',
    markdownTable(passAtKTable(results), 1),
    '',
    resultsStatus(results),
    '',
  ].join('\n');
}
