/** What `actorgym rollout` does (its options are in rollout.ts). */
import { createRolloutSystem } from '../../actors/rollout-system.ts';
import { resolveAgent, type ResolvedAgent } from '../agent-spec.ts';
import { closeRemote } from '../close-remote.ts';
import { checkEpisodesAgainstSplit } from '../episodes-past-split.ts';
import { serveEventsPort } from '../events-port.ts';
import { INTERRUPTED_EXIT_CODE, interruptReason, onInterrupt } from '../interrupt.ts';
import { hfAgentOptionsFrom, llmOptionsFrom } from '../llm-options.ts';
import { abortBudget, enforceMaxAborted, maxAbortedReason, reasonList } from '../max-aborted.ts';
import { printJson } from '../output.ts';
import { showRunProgress } from '../progress.ts';
import { resolveCommandEnv, serverStats } from '../remote-options.ts';
import { judgedWebEnv, type JudgedEnv } from '../judge-option.ts';
import { printLlmUsage, printRolloutSummary } from '../summary.ts';
import type { RolloutSummary } from '../../streams/events.ts';
import type { RolloutOptions } from './rollout.ts';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TokenRecordingPolicy } from '../../demos/token-recording-policy.ts';
import { TokenRecordStream } from '../../demos/write-token-records.ts';
import type { EpisodeOutput } from '../../machines/episode-record.ts';
import { recordOfOutput, tokenRecorder, type RecordPlace } from '../token-records-out.ts';

type RolloutEnv = Awaited<ReturnType<typeof resolveCommandEnv>>;

interface TokenRecordsOut {
  readonly recorder: TokenRecordingPolicy;
  readonly stream: TokenRecordStream;
  /** The first record that could not be made: the run stops and the command fails with it. */
  failure?: Error;
  stop?: (reason: string) => void;
}

/** `--format tokens`: the agent wrapped to keep its ids and the file opened; on a refusal the agent and env are closed first. */
async function openTokenRecords(options: RolloutOptions, agent: ResolvedAgent, env: Parameters<typeof closeRemote>[0]): Promise<TokenRecordsOut | undefined> {
  if (options.out === undefined) return undefined;
  try {
    return { recorder: tokenRecorder(agent, options.agent), stream: new TokenRecordStream(options.out) };
  } catch (error) {
    await agent.dispose();
    await closeRemote(env);
    throw error;
  }
}

function checkOutDir(out: string): void {
  const dir = path.dirname(path.resolve(out));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--out ${out}: directory ${dir} does not exist`);
}

/** The file written, and a warning when turns drift (docs/token-records.md: a tokenizer mismatch shows here). */
function reportTokenRecords(stream: TokenRecordStream, json: boolean): void {
  if (!json) process.stderr.write(`${stream.written} token records written to ${stream.file}\n`);
  if (stream.driftTurns > 0) {
    process.stderr.write(`warning: ${stream.driftTurns} turn(s) drift: their ids differ from re-tokenizing their text (the records keep the sampled ids; check that --tokenizer is the served model's)\n`);
  }
}

/** Each scored episode's token record, one line as it finishes (the policy released it just before). */
function writeRecordOf(tokens: TokenRecordsOut, place: RecordPlace): (output: EpisodeOutput) => void {
  return (output) => {
    try {
      const record = recordOfOutput(output, tokens.recorder, place);
      if (record !== undefined) tokens.stream.write(record);
    } catch (error) {
      tokens.failure ??= error instanceof Error ? error : new Error(String(error));
      tokens.stop?.(`token record: ${tokens.failure.message}`);
    }
  };
}

/** The flag checks that need nothing opened. */
function checkRolloutFlags(options: RolloutOptions): void {
  if (options.horizon !== undefined && options.schedule !== undefined) throw new Error('give --horizon or --schedule, not both');
  if ((options.format === undefined) !== (options.out === undefined)) throw new Error('--format tokens and --out FILE go together: the token records are written to --out');
  if (options.out !== undefined) checkOutDir(options.out);
}

/**
 * The env (local, --remote, or the web env with --judge), the split's size and the note --repeat
 * prints; the env is closed on a refusal.
 */
async function openRolloutEnv(options: RolloutOptions, token: string | undefined): Promise<{ env: RolloutEnv; tasks: number; repeatNote: string | undefined; judged: JudgedEnv | undefined }> {
  const judged = options.judge !== undefined ? await judgedWebEnv(options.env, options) : undefined;
  const env = judged?.env ?? (await resolveCommandEnv(options.env, options, token, options.envTimeout));
  const tasks = env.tasks(options.split).length;
  try {
    const repeatNote = options.episodes === undefined
      ? undefined
      : checkEpisodesAgainstSplit({ episodes: options.episodes, tasks, split: options.split, env: env.spec.id, repeat: options.repeat === true });
    return { env, tasks, repeatNote, judged };
  } catch (error) {
    await judged?.close();
    await closeRemote(env);
    throw error;
  }
}

function createRollout(options: RolloutOptions, env: RolloutEnv, agent: ResolvedAgent, tokens: TokenRecordsOut | undefined) {
  const system = createRolloutSystem({
    env,
    agent: tokens?.recorder ?? agent.spec,
    split: options.split,
    ...(options.episodes !== undefined ? { episodes: options.episodes } : {}),
    pick: options.pick,
    ...(options.shuffle ? { shuffle: true } : {}),
    concurrency: options.concurrency,
    ...(options.horizon !== undefined ? { schedule: `fixed:${options.horizon}` } : {}),
    ...(options.schedule !== undefined ? { schedule: options.schedule } : {}),
    seed: options.seed,
    maxRetries: options.maxRetries,
    maxLostRetries: options.maxLostRetries,
    envTimeoutMs: options.envTimeout,
    ...(agent.agentTimeoutMs !== undefined ? { agentTimeoutMs: agent.agentTimeoutMs } : {}),
    ...(tokens !== undefined ? { onEpisode: writeRecordOf(tokens, { env, split: options.split }) } : {}),
  });
  if (tokens !== undefined) tokens.stop = (reason) => system.stop(reason);
  agent.watchFatal?.((error) => system.stop(error.message));
  return system;
}

export async function runRollout(options: RolloutOptions): Promise<void> {
  checkRolloutFlags(options);
  const token = options.token ?? process.env.ACTORGYM_TOKEN;
  const { env, tasks, repeatNote, judged } = await openRolloutEnv(options, token);
  const agent = await resolveAgent(options.agent, {
    env: options.env,
    llm: llmOptionsFrom(options), hf: hfAgentOptionsFrom(options),
    backend: options.backend,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
  const tokens = await openTokenRecords(options, agent, env);
  const system = createRollout(options, env, agent, tokens);
  // Before the run: subscribers see it from `run.started`; close() below drains them.
  const eventServer = await serveEventsPort(system.events, options, token ? { token } : {});
  const progress = showRunProgress(system.events, options.episodes ?? tasks, options.maxRetries, !options.json);
  const interrupt = onInterrupt('stopping: no new episodes; running ones end as aborted', (signal) => system.stop(interruptReason(signal)));
  if (repeatNote !== undefined) process.stderr.write(`${repeatNote}\n`);
  const summary = await system.run().finally(async () => {
    interrupt.dispose();
    tokens?.stream.close();
    await judged?.close();
  });
  progress?.unsubscribe();
  await eventServer?.close();
  await agent.dispose();
  try {
    const fatal = agent.fatalError?.() ?? tokens?.failure;
    if (fatal) throw fatal;
    reportRollout(options, summary, { agent, env, tokens, judge: judged?.name, interrupted: interrupt.interrupted, repeated: repeatNote !== undefined ? { tasks, episodes: summary.slots } : undefined });
  } finally {
    await closeRemote(env);
  }
}

interface RolloutEnding {
  readonly agent: ResolvedAgent;
  readonly env: RolloutEnv;
  readonly tokens: TokenRecordsOut | undefined;
  /** `openai:MODEL` of --judge. */
  readonly judge: string | undefined;
  readonly interrupted: boolean;
  readonly repeated: { tasks: number; episodes: number } | undefined;
}

/**
 * The summary (JSON or table), then what the exit code says: 130 after a stop by signal, 1 past
 * --max-aborted. Past it, the success rate is labelled as over scored episodes only, next to the
 * share never scored (issue 40, finding 7), so the number printed does not pass for the agent's.
 */
function reportRollout(options: RolloutOptions, summary: RolloutSummary, end: RolloutEnding): void {
  const llm = end.agent.usage?.();
  const servers = serverStats(end.env);
  const unscored = { unscored: summary.slots - summary.outcomes.success - summary.outcomes.failure - summary.outcomes.truncated, total: summary.slots, detail: `aborted attempts: ${reasonList(summary.abortReasons) || 'none'}` };
  const overBudget = !end.interrupted && maxAbortedReason(unscored, options.maxAborted) !== undefined;
  const written = end.tokens !== undefined ? { tokenRecords: { out: end.tokens.stream.file, written: end.tokens.stream.written, driftTurns: end.tokens.stream.driftTurns } } : {};
  if (end.tokens !== undefined) reportTokenRecords(end.tokens.stream, options.json === true);
  if (options.json) {
    printJson({
      ...summary, ...(end.repeated ? { repeated: end.repeated } : {}), ...written, ...(end.interrupted ? { interrupted: true } : {}), ...(llm ? { llm } : {}), ...(servers ? { servers } : {}),
      maxAborted: abortBudget(options.maxAborted, overBudget), ...(end.judge !== undefined ? { judge: end.judge } : {}),
    });
  } else {
    printRolloutSummary(summary, { scoredOnly: overBudget });
    if (end.judge !== undefined) process.stdout.write(`free-text answers judged by ${end.judge}\n`);
    if (llm) printLlmUsage(llm);
  }
  if (end.interrupted) {
    process.stderr.write(`interrupted: ${summary.episodes - summary.outcomes.aborted} of ${summary.slots} episodes finished and scored; the rest were stopped\n`);
    process.exitCode = INTERRUPTED_EXIT_CODE;
    return;
  }
  if (summary.outcomes.aborted > 0) {
    process.stderr.write(`warning: ${summary.outcomes.aborted} episode(s) aborted by infrastructure failures (not scored); see outcomes.aborted\n`);
  }
  enforceMaxAborted(unscored, options.maxAborted);
}
