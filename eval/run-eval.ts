/**
 * The evaluation harness: n samples of each task of a split, scored as Avg@n and Pass@k overall
 * and per task category (AgentGym-RL's tables), written to an evaluation directory
 * (eval-files.ts) as it goes, and resumable.
 *
 * Each (task, sample) is one slot of the rollout system with key `sample × |split| + task index`,
 * so its seed (derived from the run seed and the key) and its episode id are the same in every
 * session, whatever ran before: a resumed evaluation runs only the pairs without a result and
 * gives the results one uninterrupted run would. (With n = 1 the keys are the split indices, as
 * in `rollout`.) An aborted attempt is retried by the run (`maxRetries`); a pair that stays
 * aborted is missing, never a failure, and the next session runs it again.
 *
 * @example
 * const { results } = await runEvaluation({ env: getEnv('babyai'), agent: 'random', samples: 4, out: 'evals/babyai-random' });
 * console.log(results.avgAtN, results.passAtK['4'], results.categories);
 */
import type { TaskPick } from '../envs/pick-tasks.ts';
import type { Observable } from 'rxjs';
import type { EnvDefinition, Split } from '../envs/contract.ts';
import type { CallEnded, LlmUsage } from '../policy/llm/chat-types.ts';
import { callsTotal } from './calls-total.ts';
import type { OptionValue } from './eval-config.ts';
import type { RunEvent } from '../streams/events.ts';
import { systemClock, type RunClock } from '../actors/clock.ts';
import type { AgentSpec } from '../actors/rollout-system.ts';
import { EvalDir } from './eval-files.ts';
import { evalPlan, missingSlots, openEvalDir } from './eval-plan.ts';
import { buildResults, resultsByPair, type EvalResults } from './eval-results.ts';
import type { EvalEpisodeRecord } from './eval-record.ts';
import { runEvalSession } from './eval-session.ts';
import { mergeUsage } from './merge-usage.ts';
import { resultsMarkdown } from './results-md.ts';

/** Options of `runEvaluation`: the agent and env, the split, samples per task (n of Avg@n), the output directory and the rollout limits. */
export interface RunEvaluationOptions {
  readonly env: EnvDefinition;
  readonly agent: AgentSpec;
  /** The agent as results name it; default the policy's name (`random`, `oracle`, `checkpoint@60`). */
  readonly agentName?: string;
  /** Default `test`. */
  readonly split?: Split;
  /** n: samples of each task. */
  readonly samples: number;
  /** Evaluate `tasks` tasks of the split (which ones: `pick`); default all of them. */
  readonly tasks?: number;
  /** Which `tasks` tasks when fewer than the split: `first` (default) or `stratified` over categories (envs/pick-tasks.ts; the CLI's default). */
  readonly pick?: TaskPick;
  /** Evaluate the tasks in an order shuffled by `seed` (default false). */
  readonly shuffle?: boolean;
  /** The evaluation directory; created, or resumed when it holds this evaluation. */
  readonly out: string;
  /** Run seed; every (task, sample) derives its own from it. Default 0. */
  readonly seed?: number;
  /** Episodes running at once. Default 32. */
  readonly concurrency?: number;
  /** Max agent turns per episode; default the env's. */
  readonly horizon?: number;
  /** Deadline of one agent decision. Default 120 s (the rollout system's). */
  readonly agentTimeoutMs?: number;
  /** Deadline of one env call. Default 30 s. */
  readonly envTimeoutMs?: number;
  /** Retries of an aborted (task, sample) within this session. Default 2. */
  readonly maxRetries?: number;
  /** Further retries of a pair aborted because its env server was lost (rollout system's `maxLostRetries`). Default 10. */
  readonly maxLostRetries?: number;
  /** Run at most this many of the missing pairs in this session (the rest stay missing). */
  readonly maxEpisodes?: number;
  /** Aborting stops the session: running episodes end as cancelled (missing), results are written. */
  readonly signal?: AbortSignal;
  /** Called once the session's episodes are about to start, with the run's event stream. */
  readonly onStart?: (start: EvalStart) => void;
  /** Called after every finished attempt. */
  readonly onProgress?: (progress: EvalProgress) => void;
  /** An LLM agent's usage in this process (added to earlier sessions' in results.tokens). */
  readonly usage?: () => LlmUsage | undefined;
  /**
   * An LLM agent's calls as each ends (`CallEnded`, keyed by episode): each attempt's calls are
   * written with its line, and results.tokens is their sum, so totals survive a killed session
   * (calls-total.ts). Without it, `usage` of each session is added up as it finishes.
   */
  readonly watchCalls?: (listener: (call: CallEnded) => void) => void;
  /**
   * The agent options that change results, by flag (`--temperature` …), kept in config.json: a
   * resumed run that changes one is refused (`EVAL_CONFIG_MISMATCH` names it, old → new).
   */
  readonly agentOptions?: Readonly<Record<string, OptionValue>>;
  /**
   * Keep each turn's page picture (`info.screenshot` of an env that sends one, such as
   * `createWebDefinition({ screenshots: true })`) as `DIR/screenshots/<episodeId>/<turn>.jpg`
   * (screenshot-tap.ts). Default false.
   */
  readonly screenshots?: boolean;
  /** The LLM judge the env grades free-text answers with (`openai:MODEL`), recorded in config.json and results.json. */
  readonly judge?: string;
  readonly clock?: RunClock;
}

export interface EvalStart {
  readonly events: Observable<RunEvent>;
  /** Pairs this session runs. */
  readonly episodes: number;
  /** Pairs that already had a result. */
  readonly done: number;
  readonly total: number;
}

export interface EvalProgress {
  /** Pairs with a result, this session's and earlier ones. */
  readonly done: number;
  readonly total: number;
  readonly successes: number;
  /** Aborted attempts this session (retried, or left missing). */
  readonly abortedAttempts: number;
}

/** What `runEvaluation` ends with: the results, the evaluation directory, and how many (task, sample) pairs this session ran or found done. */
export interface EvalRun {
  readonly results: EvalResults;
  /** The evaluation directory, absolute. */
  readonly dir: string;
  /** Pairs this session ran. */
  readonly ran: number;
  /** Pairs that had a result before this session. */
  readonly resumedFrom: number;
  /** Everything was already done: nothing ran, and `results` are the stored ones. */
  readonly alreadyComplete: boolean;
  /** Bytes of a cut last line (from a killed session) removed from episodes.jsonl. */
  readonly cutBytes: number;
}

/**
 * Evaluates an agent: n samples of each task of a split, scored as Avg@n and Pass@k overall and
 * per task category, written to `out` as it goes; a second call on the same directory runs only
 * the pairs without a result (see the file header).
 */
export async function runEvaluation(options: RunEvaluationOptions): Promise<EvalRun> {
  const plan = evalPlan(options);
  const { config, taskIds } = plan;
  const dir = new EvalDir(options.out);
  openEvalDir(dir, config);
  const { records, cutBytes } = dir.readEpisodes();
  const previous = dir.readResults() as Partial<EvalResults> | undefined;
  const done = resultsByPair(records, taskIds, config.n);
  const resumedFrom = done.size;
  const earlierSeconds = typeof previous?.wallSeconds === 'number' ? previous.wallSeconds : 0;
  const earlierTokens = previous?.tokens ?? null;
  const finish = (wallSeconds: number, tokens: LlmUsage | null, ran: number): EvalRun => {
    const results = buildResults({ config, taskIds, records, tokens, wallSeconds });
    dir.writeResults(results, resultsMarkdown(results));
    return { results, dir: dir.root, ran, resumedFrom, alreadyComplete: ran === 0 && results.complete, cutBytes };
  };
  if (done.size === taskIds.length * config.n) {
    if (previous?.complete === true) return { results: previous as EvalResults, dir: dir.root, ran: 0, resumedFrom, alreadyComplete: true, cutBytes };
    return finish(earlierSeconds, earlierTokens, 0); // killed between its last episode and its results
  }
  const slots = missingSlots(plan, done, options.maxEpisodes);
  const seconds = await runEvalSession({
    options, plan, dir, clock: options.clock ?? systemClock, slots, records,
    done: done.size, doneSuccesses: [...done.values()].filter((r) => r.outcome === 'success').length,
  });
  return finish(earlierSeconds + seconds, sessionTokens(options, records, earlierTokens), slots.length);
}

/** results.tokens after a session: summed from the episode lines when the agent tallies its calls per episode, else added up per session. */
function sessionTokens(options: RunEvaluationOptions, records: readonly EvalEpisodeRecord[], earlier: LlmUsage | null): LlmUsage | null {
  const session = options.usage?.() ?? null;
  if (options.watchCalls === undefined) return mergeUsage(earlier, session);
  return callsTotal(records, Math.max(earlier?.maxInFlight ?? 0, session?.maxInFlight ?? 0));
}
